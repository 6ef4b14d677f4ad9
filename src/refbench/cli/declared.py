"""Options that tasks and trainers declare, on the generic commands: ``--task-arg KEY=VALUE``
(``--train-arg`` for trainers, as models take ``--model-arg``) and the flags the declarations
name (AltEntities' ``--input``), built here from the registries, never written in ``cli/``.

A :class:`DeclaredCommand` builds a click option for every flag some task's (or trainer's)
:class:`~refbench.core.options.Option` declares, with the owners' help, and keeps what was given
(:func:`given`); the owner then checks it (:func:`checked`): an unknown key is one usage error
naming the owner's options, a bad value names the option (and the flag it came by) and what is
expected. The declared flags are built only when a command line names a flag the command does
not have itself, or asks for help: ``refbench evaluate --task kitmus ...`` imports no other
task's module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from refbench.core.errors import UsageError
from refbench.core.help_text import FilledCommand
from refbench.core.options import Option, listing, parse_key_values

#: Where the values a command line gave by declared flags are kept (``click.Context.meta``).
_GIVEN = "refbench.declared"
_LIGHT = "refbench.declared.light"
#: The ``KEY=VALUE`` flag of each kind of options.
ARG_FLAGS = {"task": "--task-arg", "trainer": "--train-arg"}

#: Who declares options, for one kind (``task``, ``trainer``): (owner, its options) pairs.
Owners = Callable[[], Iterable[tuple[str, Sequence[Option]]]]


@dataclass
class Given:
    """What a command line gave for one kind of options: ``values`` by key (strings, or
    ``True`` for a flag), and ``flags``: the flag each key came by (absent: ``--task-arg``)."""

    values: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.values)


def given(kind: str, pairs: Sequence[str] = (), *, flag: str = "--task-arg") -> Given:
    """The options of ``kind`` this command line gave: by the declared flags, then by ``flag``
    (``KEY=VALUE``, repeatable), which wins for a key given both ways."""
    ctx = click.get_current_context(silent=True)
    found: dict[str, tuple[Any, str]] = {}
    if ctx is not None:
        found = dict(ctx.meta.get(_GIVEN, {}).get(kind, {}))
    out = Given({k: v for k, (v, _) in found.items()}, {k: f for k, (_, f) in found.items()})
    for key, value in parse_key_values(pairs, flag=flag).items():
        out.values[key] = value
        out.flags.pop(key, None)
    return out


def checked(options: Given, check: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``options`` checked one by one by ``check`` (an owner's ``parse_options``); an error
    about a value given by a declared flag names that flag first."""
    out: dict[str, Any] = {}
    for key, value in options.values.items():
        try:
            out.update(check({key: value}))
        except UsageError as exc:
            flag = options.flags.get(key)
            if flag is None:
                raise
            raise UsageError(f"{flag}: {exc.message}") from None
    return out


def checked_for_tasks(options: Given, tasks: Sequence[Any], *,
                      scorer: bool = False) -> dict[str, Any]:
    """``options`` checked against the options ``tasks`` declare (one task: its own, as
    :meth:`~refbench.tasks.base.Task.check_options`; several, as for ``run --data A --data
    B``: each key against the tasks that declare it, an unknown key naming all theirs)."""
    from refbench.tasks.scope import checked_option

    if not options:
        return {}
    return checked(options, lambda one: checked_option(one, tasks, scorer=scorer))


def tasks_of(data: Sequence[Path], task: Any) -> list[Any]:
    """The tasks whose options apply to ``data``: ``task`` when given, else each file's (its
    format's) or folder's (the task that takes it whole)."""
    if task is not None:
        return [task]
    from refbench.tasks.choices import infer_task
    from refbench.tasks.lookup import folder_task_of

    found: list[Any] = []
    for path in data:
        one = folder_task_of(path) if path.is_dir() else infer_task(path, kinds=None)
        if one not in found:
            found.append(one)
    return found


def task_owners(*, scorer: bool = False) -> Owners:
    """Every registered task as an owner of options (``scorer``: its scorer's options too)."""
    def owners() -> list[tuple[str, Sequence[Option]]]:
        from refbench.tasks.lookup import all_tasks

        return [(t.name, t.options(scorer=scorer)) for t in all_tasks()]

    return owners


def options_listing(owners: Owners) -> str:
    """``altentities: input_type (--input), max_words (--max-words); knowref: ...``: what a
    ``--help`` says each owner takes."""
    rows = [f"{name}: {listing(options)}" for name, options in owners() if options]
    return "; ".join(rows) or "none declared"


class DeclaredCommand(FilledCommand):
    """A command that also has the flags the ``declared`` owners' options name, one click
    option per flag (the help says whose, and what it expects); their values go to
    :func:`given`. ``declared``: kind (``task``, ``trainer``) -> who declares options."""

    def __init__(self, *args: Any, declared: Mapping[str, Owners],
                 fills: Mapping[str, Callable[[], str]] | None = None, **kwargs: Any) -> None:
        self.declared = dict(declared)
        self._built: list[click.Parameter] | None = None
        super().__init__(*args, fills=fills or {}, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        built = set(map(id, self._built or ()))
        own = {o for p in self.params if id(p) not in built for o in (*p.opts, *p.secondary_opts)}
        words = args[:args.index("--")] if "--" in args else args
        ctx.meta[_LIGHT] = not any(
            w in ctx.help_option_names
            or (w.startswith("--") and w.partition("=")[0] not in own) for w in words)
        return super().parse_args(ctx, args)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """The command's parameters; the declared flags too unless this command line needs
        none of them (they then join ``params``, where the reference pages read them)."""
        if ctx.meta.get(_LIGHT):
            built = set(map(id, self._built or ()))
            return [p for p in super().get_params(ctx) if id(p) not in built]
        self.declared_params()
        return super().get_params(ctx)

    def declared_params(self) -> list[click.Parameter]:
        """One click option per declared flag, in the order the owners declare them (a flag
        the command has itself is left to it), put in the command's ``params`` in place of
        those built before (the registries may have gained a plugin since)."""
        built = set(map(id, self._built or ()))
        self.params[:] = [p for p in self.params if id(p) not in built]
        own = {o for p in self.params for o in p.opts}
        self._built = []
        for kind, owners in self.declared.items():
            self._built += [p for p in _flag_options(kind, owners()) if not own & set(p.opts)]
        self.params.extend(self._built)
        return self._built


def _flag_options(kind: str, owners: Iterable[tuple[str, Sequence[Option]]]
                  ) -> list[click.Parameter]:
    by_flag: dict[str, list[tuple[str, Option]]] = {}
    for owner, options in owners:
        for option in options:
            for flag in option.flags:
                by_flag.setdefault(flag, []).append((owner, option))
    out: list[click.Parameter] = []
    for flag, declaring in by_flag.items():
        key = declaring[0][1].name
        switch = all(o.kind is bool for _, o in declaring)
        out.append(click.Option(
            [flag], is_flag=switch, default=None, expose_value=False,
            metavar=None if switch else "VALUE", callback=_keeper(kind, key, flag),
            help=f"{_flag_help([(w, o) for w, o in declaring if o.name == key])} "
                 f"({ARG_FLAGS.get(kind, '--' + kind + '-arg')} {key}=VALUE)"))
    return out


def _flag_help(declaring: Sequence[tuple[str, Option]]) -> str:
    """What a flag means, once per distinct meaning, and whose it is with each default:
    ``passes over the training data (an integer >= 1): cross-encoder (default 3), tne
    (default 3)``."""
    meanings: dict[tuple[str, str], list[str]] = {}
    for owner, option in declaring:
        whose = owner if option.default is None else f"{owner} (default {option.default})"
        meanings.setdefault((option.help, option.expects()), []).append(whose)
    return "; ".join(f"{text} ({expects}): {', '.join(owners)}" if text
                     else f"{expects}: {', '.join(owners)}"
                     for (text, expects), owners in meanings.items())


def _keeper(kind: str, key: str, flag: str) -> Callable[[click.Context, click.Parameter, Any],
                                                       None]:
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or value is False:
            return
        ctx.meta.setdefault(_GIVEN, {}).setdefault(kind, {})[key] = (value, flag)

    return keep

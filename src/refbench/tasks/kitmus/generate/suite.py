"""Write a whole KITMUS suite: every job's files, stats.json and DATASHEET.md, atomically.

Layout: ``DIR/<variant>/subtask_<n>_ents/<split>.jsonl`` (native) and
``DIR/<variant>/subtask_<n>_ents/<view>/<split>.<ext>`` for the official views and formats.
Everything is written into a temporary sibling folder that replaces ``DIR`` only when the whole
suite is complete, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import OutputError, UsageError
from refbench.core.io import (
    LineWriter,
    commit_output_dir,
    discard_output_dir,
    prepare_output_dir,
    write_text_atomic,
)
from refbench.core.version import __version__
from refbench.core.workers import worker_pool
from refbench.tasks.kitmus.generate.instances import (
    GENERATOR_VERSION,
    Pools,
    build_pools,
    check_job,
    generate_job,
)
from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR, Resources
from refbench.tasks.kitmus.generate.variants import VARIANTS
from refbench.tasks.kitmus.instance import SPLITS, VIEWS, KitmusInstance
from refbench.tasks.kitmus.native import dumps_instance
from refbench.tasks.kitmus.registries import KITMUS_FORMATS, KITMUS_VARIANTS
from refbench.tasks.kitmus.writers import (
    GAP_HEADER,
    write_conll,
    write_gap,
    write_jsonlines,
    write_txt,
)

FORMAT_EXT = {"conll": "v4_gold_conll", "jsonlines": "jsonlines", "tsv": "tsv", "txt": "txt"}
_WRITERS: dict[str, Callable[[KitmusInstance, str], str]] = {
    "conll": write_conll, "jsonlines": write_jsonlines, "tsv": write_gap, "txt": write_txt,
}
DEFAULT_SIZES = {"train": 2000, "validation": 400, "test": 2000}
ENTITY_COUNTS = (2, 3, 4)


@dataclass(frozen=True)
class SuiteConfig:
    variants: tuple[str, ...] = tuple(VARIANTS)
    entities: tuple[int, ...] = ENTITY_COUNTS
    splits: tuple[str, ...] = SPLITS
    formats: tuple[str, ...] = ("conll", "jsonlines", "tsv", "txt", "jsonl")
    sizes: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_SIZES))
    seed: int = 42

    def jobs(self) -> list[tuple[str, int, str]]:
        return [(v, n, s) for v in self.variants for n in self.entities for s in self.splits]


def make_config(
    *,
    variants: Sequence[str] | None = None,
    entities: Sequence[int] | None = None,
    splits: Sequence[str] | None = None,
    formats: Sequence[str] | None = None,
    sizes: dict[str, int] | None = None,
    seed: int = 42,
) -> SuiteConfig:
    """Validate and canonicalise user selections (aliases, order, duplicates)."""
    chosen_v = [KITMUS_VARIANTS.canonical(v) for v in (variants or list(VARIANTS))]
    v_order = [v for v in VARIANTS if v in set(chosen_v)]
    ents = sorted(set(entities or ENTITY_COUNTS))
    for n in ents:
        if n < 2:
            raise UsageError(f"--entities {n}: instances need at least 2 entities")
    sp = list(splits or SPLITS)
    for s in sp:
        if s not in SPLITS:
            raise UsageError(f"unknown split {s!r}; choose from {', '.join(SPLITS)}")
    sp = [s for s in SPLITS if s in sp]
    fm = [KITMUS_FORMATS.canonical(f) for f in (formats or KITMUS_FORMATS.names())]
    fm = [f for f in KITMUS_FORMATS.names() if f in set(fm)]
    sz = dict(DEFAULT_SIZES)
    for k, v in (sizes or {}).items():
        if k not in SPLITS:
            raise UsageError(f"unknown split {k!r} in --sizes; choose from {', '.join(SPLITS)}")
        if v < 0:
            raise UsageError(f"--sizes {k}={v}: sizes must be >= 0")
        sz[k] = v
    return SuiteConfig(tuple(v_order), tuple(ents), tuple(sp), tuple(fm), sz, seed)


# --- one job ---------------------------------------------------------------------------------

_STATE: dict[str, Any] = {}


def _init_worker(res: Resources, pools: Pools, cfg: SuiteConfig, root: str) -> None:
    _STATE.update(res=res, pools=pools, cfg=cfg, root=root)


def _run_job(job: tuple[str, int, str]) -> dict[str, Any]:
    res: Resources = _STATE["res"]
    pools: Pools = _STATE["pools"]
    cfg: SuiteConfig = _STATE["cfg"]
    return write_job(res, pools, cfg, Path(_STATE["root"]), job)


def _probe(res: Resources, pools: Pools, cfg: SuiteConfig, *, progress: bool
           ) -> dict[str, Any]:
    """The similarity probe's profile of the test split (else the last split)."""
    from refbench.tasks.kitmus.generate.difficulty import generated_difficulty

    split = "test" if "test" in cfg.splits else cfg.splits[-1]
    return generated_difficulty(res, pools, variants=cfg.variants, entities=cfg.entities,
                                split=split, size=cfg.sizes[split], seed=cfg.seed,
                                progress=progress)


def _run_probe() -> dict[str, Any]:
    import torch  # a pool task, beside the jobs: MiniLM on one thread, as each worker has a

    torch.set_num_threads(1)  # core (two fight the others: 2.5x the CPU; the same embeddings)
    return _probe(_STATE["res"], _STATE["pools"], _STATE["cfg"], progress=False)


def job_files(cfg: SuiteConfig, job: tuple[str, int, str]) -> list[tuple[str, str, str]]:
    """(relative path, view, format) of every file a job writes: native JSONL, then each view
    in each official format (GAP TSV only for 2 entities and views with the pronoun)."""
    variant, n, split = job
    sub = f"{variant}/subtask_{n}_ents"
    out = [(f"{sub}/{split}.jsonl", "", "jsonl")] if "jsonl" in cfg.formats else []
    for view in VIEWS:
        for fmt in cfg.formats:
            if fmt == "jsonl" or (fmt == "tsv" and (n != 2 or view == "knowledge-text-only")):
                continue
            out.append((f"{sub}/{view}/{split}.{FORMAT_EXT[fmt]}", view, fmt))
    return out


def write_job(res: Resources, pools: Pools, cfg: SuiteConfig, root: Path,
              job: tuple[str, int, str]) -> dict[str, Any]:
    variant, n, split = job
    writers: list[tuple[LineWriter, Callable[[KitmusInstance, str], str], str]] = []
    native = None
    for rel, view, fmt in job_files(cfg, job):
        if fmt == "jsonl":
            native = LineWriter(root / rel)
            continue
        w = LineWriter(root / rel)
        if fmt == "tsv":
            w.write(GAP_HEADER)
        writers.append((w, _WRITERS[fmt], view))
    stats: dict[str, Any] = {
        "variant": variant, "n_entities": n, "split": split, "instances": 0,
        "pronouns": Counter(), "answer_meet_position": Counter(),
        "answer_knowledge_position": Counter(), "with_noise": 0,
        "pools": defaultdict(set),  # names, occupations, locations/templates/noise per kind
    }
    for inst in generate_job(res, pools, VARIANTS[variant], n=n, split=split,
                             size=cfg.sizes[split], seed=cfg.seed):
        if native is not None:
            native.write(dumps_instance(inst))
        for w, fn, view in writers:
            w.write(fn(inst, view))
        _count(stats, inst)
    if native is not None:
        native.close()
    for w, _, _ in writers:
        w.close()
    stats["pools"] = {k: sorted(v) for k, v in stats["pools"].items()}
    for key in ("pronouns", "answer_meet_position", "answer_knowledge_position"):
        stats[key] = dict(sorted(stats[key].items()))
    return stats


def _count(stats: dict[str, Any], inst: KitmusInstance) -> None:
    stats["instances"] += 1
    stats["pronouns"][inst.pronoun] += 1
    stats["answer_meet_position"][inst.meet_order.index(inst.answer)] += 1
    stats["answer_knowledge_position"][inst.answer] += 1
    stats["with_noise"] += inst.noise is not None
    pools = stats["pools"]
    pools["names"].update(e.name for e in inst.entities)
    pools["occupations"].update(e.occupation for e in inst.entities)
    pools[f"locations:{inst.location_kind}"].add(inst.location)
    for kind, ids in inst.templates.items():
        pools[f"templates:{kind}"].update(ids)
    if inst.noise_id is not None:
        pools[f"noise:{inst.location_kind}"].add(inst.noise_id)


# --- the suite -------------------------------------------------------------------------------

def generate_suite(res: Resources, out: Path, cfg: SuiteConfig, *, workers: int = 1,
                   overwrite: bool = False, progress: bool = True, probe: bool = True
                   ) -> dict[str, Any]:
    """Generate the configured suite into ``out``; return the stats written to stats.json.

    ``probe`` adds the MiniLM similarity-probe profile (refbench.tasks.kitmus.generate.
    difficulty) of the test split (else the last split) to stats.json and DATASHEET.md.
    """
    pools = build_pools(res, seed=cfg.seed)
    jobs = cfg.jobs()
    for variant, n, split in jobs:  # every input problem surfaces before anything is written
        check_job(res, pools, VARIANTS[variant], n, split)
    tmp = prepare_output_dir(out, overwrite=overwrite)
    try:
        total = sum(cfg.sizes[s] for _, _, s in jobs)
        results: dict[tuple[str, int, str], dict[str, Any]] = {}
        # Largest jobs first so that the workers finish together.
        order = sorted(jobs, key=lambda j: -(cfg.sizes[j[2]] * (j[1] + 2)))
        difficulty: dict[str, Any] | None = None
        with tqdm(total=total, unit="inst", disable=not progress, desc="kitmus generate") as bar:
            if workers <= 1:
                for job in order:
                    results[job] = write_job(res, pools, cfg, tmp, job)
                    bar.update(cfg.sizes[job[2]])
            else:
                with worker_pool(workers, initializer=_init_worker,
                                 initargs=(res, pools, cfg, str(tmp))) as pool:
                    # The probe (MiniLM: about a fifth of the work) is one more task, given first
                    # to run beside the jobs; not where torch is loaded here (fork and threads).
                    beside = probe and "torch" not in sys.modules
                    probed = pool.apply_async(_run_probe) if beside else None
                    for job, stats in zip(order, pool.imap(_run_job, order), strict=True):
                        results[job] = stats
                        bar.update(cfg.sizes[job[2]])
                    difficulty = probed.get() if probed is not None else None
        if probe and difficulty is None:
            difficulty = _probe(res, pools, cfg, progress=progress)
        stats = summarize(res, pools, cfg, [results[j] for j in jobs])
        if not stats["split_overlap_ok"]:
            raise OutputError("the generated suite failed its own check, so nothing was "
                              "written: splits share items outside the pools too small to "
                              f"split ({json.dumps(stats['split_overlap'])})", path=out)
        if difficulty is not None:
            stats["difficulty"] = difficulty
        write_text_atomic(tmp / "stats.json", json.dumps(stats, indent=2, ensure_ascii=False)
                          + "\n")
        from refbench.tasks.kitmus.generate.datasheet import render_datasheet

        write_text_atomic(tmp / "DATASHEET.md", render_datasheet(stats))
        commit_output_dir(tmp, out)
    except BaseException:
        discard_output_dir(tmp)
        raise
    return stats


def regenerate_command(cfg: SuiteConfig, resources: str) -> str:
    """The command line that regenerates exactly this suite (output path left to the user);
    ``resources``: "builtin" or the resource folder (written as its full resolved path)."""
    import shlex

    parts = ["refbench kitmus generate --out DIR", f"--seed {cfg.seed}"]
    if resources != "builtin":
        parts.append(f"--resources {shlex.quote(str(Path(resources).resolve()))}")
    if cfg.variants != tuple(VARIANTS):
        parts.append("--variants " + ",".join(cfg.variants))
    if cfg.entities != ENTITY_COUNTS:
        parts.append("--entities " + ",".join(map(str, cfg.entities)))
    if cfg.splits != SPLITS:
        parts.append("--splits " + ",".join(cfg.splits))
    if cfg.sizes != DEFAULT_SIZES:
        parts.append("--sizes " + ",".join(f"{k}={v}" for k, v in cfg.sizes.items()))
    if cfg.formats != tuple(KITMUS_FORMATS.names()):
        parts.append("--formats " + ",".join(cfg.formats))
    return " ".join(parts)


POOL_KINDS = ("names", "occupations", "locations", "templates", "noise")


def summarize(res: Resources, pools: Pools, cfg: SuiteConfig,
              job_stats: list[dict[str, Any]]) -> dict[str, Any]:
    from refbench.tasks.kitmus.generate.roots import root_overlap

    by_split: dict[str, dict[str, set[str]]] = {}
    per_job = []
    pron_total: Counter[str] = Counter()
    for st in job_stats:
        for pool, items in st["pools"].items():
            by_split.setdefault(st["split"], {}).setdefault(pool, set()).update(items)
        pron_total.update(st["pronouns"])
        distinct: Counter[str] = Counter()
        for pool, items in st["pools"].items():
            distinct[pool.split(":")[0]] += len(items)
        per_job.append({k: v for k, v in st.items() if k != "pools"}
                       | {"distinct": {k: distinct[k] for k in POOL_KINDS}})
    overlaps: dict[str, dict[str, int]] = {}
    unforced = 0  # shared items outside the pools too small to split (pools.shared)
    present = [s for s in SPLITS if s in by_split]
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            counts: Counter[str] = Counter()
            for pool, items in by_split[a].items():
                n = len(items & by_split[b].get(pool, set()))
                counts[pool.split(":")[0]] += n
                unforced += n if pool not in pools.shared else 0
            overlaps[f"{a}/{b}"] = {k: counts[k] for k in POOL_KINDS}
    n_total = sum(st["instances"] for st in job_stats)
    pairs = sorted({(VARIANTS[v].occupation_source, VARIANTS[v].situation_source)
                    for v in cfg.variants})
    source = "builtin" if Path(res.source) == BUILTIN_DIR else Path(res.source).name
    from refbench.tasks.kitmus.generate.suite_provenance import (
        provenance_block,
        resource_layout,
        resource_licence,
    )

    return {
        "refbench_version": __version__,
        "generator_version": GENERATOR_VERSION,
        "seed": cfg.seed,
        "command": regenerate_command(cfg, "builtin" if source == "builtin" else res.source),
        "provenance": provenance_block(res),
        "config": {"variants": list(cfg.variants), "entities": list(cfg.entities),
                   "splits": list(cfg.splits), "formats": list(cfg.formats),
                   "sizes": cfg.sizes},
        "resources": {"source": source, "layout": resource_layout(res),
                      "licence": resource_licence(res),
                      "fingerprint": res.fingerprint(), "files": dict(sorted(res.files.items())),
                      "pool_sizes": {
                          "names": len(res.names), "occupations": res.n_occupations,
                          "locations": len(res.locations),
                          "location_kinds": len({x.kind for x in res.locations}),
                          "noise": sum(len(v) for v in res.noise.values()),
                          "templates": {k: len(v) for k, v in res.templates.items()}},
                      "shared_between_splits": pools.shared},
        "instances": n_total,
        "pronoun_distribution": {k: round(v / n_total, 4) if n_total else 0.0
                                 for k, v in sorted(pron_total.items())},
        "split_overlap": overlaps,
        "split_overlap_ok": unforced == 0,
        "occupation_situation_root_overlap": {
            f"{o}-{s}": root_overlap(res, o, s) for o, s in pairs},
        "jobs": per_job,
    }


def expected_identity(res: Resources, cfg: SuiteConfig) -> dict[str, Any]:
    """What ``stats.json`` records about the suite ``cfg`` and ``res`` would generate, for
    :func:`refbench.tasks.kitmus.generate.suite_provenance.stale_reason`."""
    from refbench.tasks.kitmus.generate.suite_provenance import generator_fingerprint

    return {"refbench_version": __version__, "generator_version": GENERATOR_VERSION,
            "seed": cfg.seed,
            "config": {"variants": list(cfg.variants), "entities": list(cfg.entities),
                       "splits": list(cfg.splits), "formats": list(cfg.formats),
                       "sizes": cfg.sizes},
            "resources": {"fingerprint": res.fingerprint()},
            "provenance": {"generator_fingerprint": generator_fingerprint()}}


def stale_reason(out: Path, res: Resources, cfg: Any) -> str | None:
    """Why the suite in ``out`` is not the one ``cfg`` (a SuiteConfig) and ``res`` would
    generate now (None: it is, and every file it should hold is there)."""
    expected = expected_identity(res, cfg)
    stats_file = out / "stats.json"
    if not stats_file.is_file():
        return "no stats.json (not a generated suite)"
    try:
        have = json.loads(stats_file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "stats.json is not valid JSON"
    checks = (("refbench version", ("refbench_version",)),
              ("generator version", ("generator_version",)), ("seed", ("seed",)),
              ("configuration", ("config",)),
              ("resources", ("resources", "fingerprint")),
              ("generator code", ("provenance", "generator_fingerprint")))
    for label, keys in checks:
        a: Any = have
        b: Any = expected
        for k in keys:
            a = a.get(k) if isinstance(a, dict) else None
            b = b.get(k) if isinstance(b, dict) else None
        if a != b:
            return f"its {label} differs"
    for job in cfg.jobs():
        for rel, _, _ in job_files(cfg, job):
            if not (out / rel).is_file():
                return f"{rel} is missing"
    return None

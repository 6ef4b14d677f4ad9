"""``refbench.api`` is the one module plugins import: its names and the signatures of what they
call or implement are pinned in ``tests/golden/api.txt``. A change to them is a change for
every plugin: make it on purpose, regenerate the file (``python scripts/regen_api.py``) and
review the diff. The Python API of the ``refbench`` package (``refbench.load``, ``run``, ...:
:mod:`refbench.public`) is pinned the same way in ``tests/golden/python-api.txt``."""

from __future__ import annotations

import re

from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "api.txt"
PYTHON_GOLDEN = ROOT / "tests" / "golden" / "python-api.txt"


def describe(module: str = "refbench.api") -> str:
    """Every public name of ``module`` and, for classes, the signature of each public
    method and the value of each public attribute a plugin sets or reads."""
    import importlib
    import inspect

    api = importlib.import_module(module)
    lines = []
    for name in sorted(api.__all__):
        obj = getattr(api, name)
        if inspect.isclass(obj):
            bases = ", ".join(b.__name__ for b in obj.__bases__)
            lines.append(f"class {name}({bases})")
            for attr, value in sorted(vars(obj).items()):
                if attr.startswith("_") and attr != "__init__":
                    continue
                if inspect.isfunction(value):
                    lines.append(f"    def {attr}{inspect.signature(value)}")
                elif isinstance(value, classmethod | staticmethod):
                    lines.append(f"    def {attr}{inspect.signature(value.__func__)}")
                elif isinstance(value, property):
                    lines.append(f"    property {attr}")
                elif not callable(value):
                    lines.append(f"    {attr} = {value!r}")
            fields = getattr(obj, "__dataclass_fields__", {})
            lines += [f"    field {f}: {fields[f].type}" for f in fields]
        elif callable(obj):
            lines.append(f"def {name}{inspect.signature(obj)}")
        else:
            lines.append(f"{name} = {type(obj).__name__}")
    # a sentinel default's repr holds its address: not part of the interface
    return re.sub(r" at 0x[0-9a-f]+>", ">", "\n".join(lines) + "\n")


def test_the_public_api_is_what_the_golden_file_pins() -> None:
    assert describe() == GOLDEN.read_text(encoding="utf-8")


def test_the_python_api_is_what_its_golden_file_pins() -> None:
    assert describe("refbench.public") == PYTHON_GOLDEN.read_text(encoding="utf-8")


def test_the_package_exports_the_python_api() -> None:
    import refbench
    import refbench.public

    exported = set(refbench.__all__) - {"__version__"}
    assert exported <= set(refbench.public.__all__)
    for name in exported - {"report"}:
        assert getattr(refbench, name) is getattr(refbench.public, name)
    assert callable(refbench.report)


def test_every_public_name_is_importable_and_listed() -> None:
    from refbench import api

    assert sorted(api.__all__) == sorted(set(api.__all__))
    for name in api.__all__:
        assert getattr(api, name) is not None

"""Regenerate ``tests/fixtures/runs/run-path.json``: ``refbench run --model random`` on a data
file (WSC273), a small KITMUS suite, the WinoBias release and the three at once, each run
folder and its ``--json`` output normalised (:mod:`tests.runs.reference`). Run it from the
project root with the refbench whose outputs are the reference:
``PYTHONPATH=src python -m scripts.regen_run_path`` (needs ../shared/data)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from tests.runs.reference import normalised_folder, normalised_json, normalised_text

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FIXTURE = ROOT / "tests" / "fixtures" / "runs" / "run-path.json"
#: The small suite the reference runs on (``refbench kitmus generate`` with these options).
SUITE_ARGS = ("--entities", "2,3", "--splits", "test", "--sizes", "test=12", "--variants",
              "background-pretrain,background-both", "--formats", "jsonl,conll", "--quiet",
              "--no-probe")


def cases(suite: Path) -> dict[str, list[Path]]:
    wsc = DATA / "winograd" / "wsc273.jsonl"
    winobias = DATA / "winobias"
    return {"file": [wsc], "suite": [suite], "winobias": [winobias],
            "many": [wsc, suite, winobias]}


def places(out: Path, suite: Path) -> dict[str, str]:
    return {str(out): "<out>", str(suite): "<suite>", str(DATA): "<data>"}


def command(name: str, data: list[Path], out: Path) -> list[str]:
    args = ["run", "--model", "random", "--out", str(out / name), "--no-store", "--json",
            "--quiet"]
    for d in data:
        args += ["--data", str(d)]
    return args


def main() -> None:
    import contextlib
    import io

    from refbench.cli import app
    from refbench.core.commands import run_guarded

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite, out = root / "suite", root / "runs"
        assert run_guarded(app, ["kitmus", "generate", "--out", str(suite), *SUITE_ARGS]) == 0
        ref: dict[str, object] = {}
        for name, data in cases(suite).items():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                assert run_guarded(app, command(name, data, out)) == 0
            line = buf.getvalue().strip().splitlines()[-1]
            ref[name] = {"printed": normalised_json(json.loads(line), places(out, suite)),
                         "printed_sha256": normalised_text(line, places(out, suite)),
                         "files": normalised_folder(out / name, places(out, suite))}
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    main()

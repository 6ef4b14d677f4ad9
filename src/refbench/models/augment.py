"""Training data with antecedent switching (KnowRef's augmentation): every instance and its copy
with the two candidates swapped everywhere in the text, the answer flipped. A model that learns
to prefer a *name* instead of a role gains nothing on such data; one that learns the role keeps
its answer's role on the switched copy (consistency).

Only tasks that can switch their candidates take it: KnowRef (:mod:`refbench.tasks.knowref.switch`,
whole-token swaps, instances it cannot switch safely left out of the copy).
"""

from __future__ import annotations

from pathlib import Path

from refbench.core.errors import UsageError
from refbench.core.io import format_name


def switched_training_file(path: Path, *, task: str | None, work: Path) -> Path:
    """``work/train.augmented.{tsv,json}``: the originals of ``path`` and their switched copies."""
    from refbench.tasks.choices import infer_task

    name = task or infer_task(path)
    if name != "knowref":
        raise UsageError(f"--augment (antecedent switching) is available for knowref training "
                         f"data; {name} has no switched copies")
    from refbench.tasks.knowref.switch import switch_file

    suffix = ".json" if format_name(path).endswith(".json") else ".tsv"
    work.mkdir(parents=True, exist_ok=True)
    dst = work / f"train.augmented{suffix}"
    switch_file(path, dst, with_original=True)
    return dst

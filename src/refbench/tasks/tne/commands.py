"""``refbench tne``: deterministic baselines and prediction-format conversion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.core.commands import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_DIR,
    OUT_FILE,
    PATH,
    POSITIVE,
    SEED,
    print_json,
    transactional,
)
from refbench.core.device import DEVICE_HELP, set_threads
from refbench.core.help_text import examples
from refbench.tasks.capabilities import CommandServices


@click.group(context_settings=CONTEXT, epilog=examples(
    "refbench tne baseline combined --data ../shared/data/tne/test.jsonl.gz --out "
    "runs/tne-combined"))
def tne() -> None:
    """TNE (Text-based NP Enrichment): baselines and prediction formats."""


#: What the command line lent these commands (:func:`commands`): the run recorder.
_LENT: list[CommandServices] = []
STORE_HELP = "Results store (default: $REFBENCH_STORE, else the project's .refbench/)."


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne baseline surface-expand --data ../shared/data/tne/test.jsonl.gz "
        "--out runs/tne-se",
        "refbench tne baseline all --data ../shared/data/tne/test.jsonl.gz --out "
        "runs/tne-baselines --json",
        "refbench evaluate --task tne --gold ../shared/data/tne/test.jsonl.gz --pred "
        "runs/tne-se  # the figure the baseline printed")))
@click.argument("name")
@click.option("--data", type=DATA, required=True, help="TNE documents (any release).")
@click.option("--out", type=OUT_DIR, required=True,
              help="Run folder (predictions.jsonl, metrics.json); with NAME 'all', a folder "
                   "of one run folder per baseline.")
@click.option("--leaderboard", is_flag=True,
              help="Also export the predictions in the leaderboard format (leaderboard.jsonl "
                   "in the run folder).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="For title-random.")
@click.option("--system", default=None,
              help="Name in tables and the store (default: the model spec, "
                   "tne-baseline:NAME).")
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--no-store", is_flag=True, help="Do not record the run in the store.")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@transactional
def baseline(name: str, data: Path, out: Path, leaderboard: bool, seed: int,
             system: str | None, store: Path | None, no_store: bool, as_json: bool) -> None:
    """Run one of the paper's deterministic baselines (title-first, title-last, title-random,
    adj-forward, adj-backward, surface, surface-expand, combined, combined-coref; or all) with
    oracle prepositions into a run folder recorded in the results store (as refbench run
    does), and score it when the data is labelled, beside the paper's Table 4 (labelled test
    set). Surface-expand and the combined rows do not reproduce Table 4 under any reading
    tried: see docs/tne-baselines.md."""
    from refbench.core.errors import UsageError
    from refbench.core.output_checks import check_output_dir
    from refbench.tasks.tne.models.baselines import BASELINES, paper_row, with_oracle_prepositions
    from refbench.tasks.tne.read import read_documents
    from refbench.tasks.tne.run_folder import baseline_spec, tne_run_metrics

    names = list(BASELINES) if name == "all" else [name]
    for n in names:
        if n not in BASELINES:
            raise UsageError(f"unknown baseline {n!r}; choose from {', '.join(BASELINES)}, all")
    from tqdm import tqdm

    targets = {n: out / n if name == "all" else out for n in names}
    for target in targets.values():
        check_output_dir(target)  # every run folder writable before any is written
    docs = read_documents(data, progress=True)
    labelled = all(d.relations is not None for d in docs)
    report: dict[str, dict[str, Any]] = {}
    for n in tqdm(names, desc="baselines", leave=False, disable=None):
        links = [BASELINES[n](d, seed) for d in docs]
        spec, fp = baseline_spec(n, seed)
        metrics = tne_run_metrics(
            docs, [with_oracle_prepositions(d, ls) for d, ls in zip(docs, links, strict=True)],
            data, targets[n], model=spec, fingerprint=fp,
            system=(f"{system} {n}" if system and name == "all" else system),
            leaderboard=leaderboard, config={"baseline": n, "seed": seed,
                                             "prepositions": "oracle"})
        m = _LENT[0].record_run(metrics, targets[n], store=store, no_store=no_store)
        report[n] = {k: m.get(k) for k in ("labeled_precision", "labeled_recall",
                                           "labeled_f1", "n_predicted", "n_gold")} | {
            "paper_table4_test_percent": paper_row(n), "out": str(targets[n]),
            "run_id": m.get("run_id"), "store": m.get("store")}
    if as_json:
        print_json({"data": str(data), "labelled": labelled, "baselines": report})
        return
    click.echo(f"{'baseline':16s} {'refbench P / R / F1':>20s}   paper, Table 4 (test) P / R / F1")
    for n, r in report.items():
        ours = (" / ".join(f"{100 * r[k]:4.1f}" for k in ("labeled_precision", "labeled_recall",
                                                        "labeled_f1"))
                if labelled else "(unlabelled data)")
        paper = r["paper_table4_test_percent"] or {}
        click.echo(f"{n:16s} {ours:>20s}   {' / '.join(f'{v:4.1f}' for v in paper.values())}")
    click.echo("refbench: oracle prepositions, scored on the given file. Paper: Table 4, "
               "labelled test set (surface-expand, combined and combined-coref do not reproduce: "
               "docs/tne-baselines.md).")
    for n, r in report.items():
        click.echo(("" if name != "all" else f"{n}: ") + _where(r))


def _where(r: dict[str, Any]) -> str:
    """``predictions: OUT/predictions.jsonl; run 3 in STORE``, as refbench run prints it."""
    line = f"predictions: {Path(r['out']) / 'predictions.jsonl'}"
    if r.get("run_id") is not None:
        line += f"; run {r['run_id']} in {r.get('store') or 'the results store'}"
    return line


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne stats ../shared/data/tne/test.jsonl.gz",
        "refbench tne stats ../shared/data/tne/train-reconstructed-v1.1.jsonl.gz "
        "../shared/data/tne/dev.jsonl.gz ../shared/data/tne/test.jsonl.gz "
        "../shared/data/tne/ood.jsonl.gz --total --json")))
@click.argument("files", type=DATA, nargs=-1, required=True)
@click.option("--total", is_flag=True,
              help="Also all FILES together (Table 3's 'all' column for train+dev+test+OOD; "
                   "give each split once).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(files: tuple[Path, ...], total: bool, as_json: bool) -> None:
    """Corpus statistics of TNE files beside the paper's Table 3 (the column is chosen by the
    file name: train*, dev*, test*, ood*; an OOD file also gets its Books, IMDB and Reddit
    parts). Rows marked * are refbench's readings of statistics whose definition the paper
    leaves open; they do not reproduce its figures."""
    from refbench.tasks.tne.stats import file_statistics, render_table3

    result = file_statistics(list(files), total=total, progress=True)
    if as_json:
        print_json(result)
        return
    click.echo(render_table3(result))


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne convert runs/tne-se/predictions.jsonl board.jsonl --gold "
        "../shared/data/tne/test.jsonl.gz --to leaderboard  # runs/tne-se: refbench tne "
        "baseline --help",
        "refbench tne convert ../shared/data/tne/dev.jsonl.gz gold-board.jsonl --gold "
        "../shared/data/tne/dev.jsonl.gz --to leaderboard")))
@click.argument("src", type=DATA)
@click.argument("dst", type=OUT_FILE)
@click.option("--gold", type=DATA, required=True, help="The documents (NP order and ids).")
@click.option("--to", "target", type=click.Choice(["leaderboard", "refbench"]),
              default="leaderboard", show_default=True, help="leaderboard or refbench.")
def convert(src: Path, dst: Path, gold: Path, target: str) -> None:
    """Convert predictions between refbench JSONL and the leaderboard format (n x n preposition
    ids). SRC is a predictions file or a run folder (refbench tne baseline --out), or the gold
    documents themselves (gold to leaderboard answers)."""
    from refbench.core.errors import UsageError
    from refbench.tasks.tne.predictions import gold_relations, read_predictions, write_predictions
    from refbench.tasks.tne.read import read_documents

    if target not in ("leaderboard", "refbench"):
        raise UsageError("--to must be leaderboard or refbench")
    docs = read_documents(gold)
    if src.is_dir():  # a run folder (refbench tne baseline / predict --out): its predictions
        found = [src / n for n in ("predictions.jsonl", "predictions.jsonl.gz")
                 if (src / n).is_file()]
        if not found:
            raise UsageError(f"{src}: a folder without predictions.jsonl; give a run folder "
                             "(refbench tne baseline --out) or a predictions file")
        src = found[0]
    if src.resolve() == gold.resolve():
        rels = [gold_relations(d) for d in docs]
    else:
        preds = read_predictions(src, {d.id: d for d in docs})
        rels = [preds[d.id].relations if d.id in preds else {} for d in docs]
    n = write_predictions(docs, rels, dst, leaderboard=target == "leaderboard")
    click.echo(f"wrote {n} documents to {dst}")


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne chunk \"The roof of the house in the town fell.\"",
        "refbench tne chunk \"The roof of the house in the town fell.\" --json")))
@click.argument("text", required=False)
@click.option("--file", "file", type=PATH, default=None, help="Read the text from a file.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def chunk(text: str | None, file: Path | None, as_json: bool) -> None:
    """Base noun phrases as TNE defines them (pronouns dropped, time/measure NPs flagged)."""
    from refbench.core.errors import RefbenchError, UsageError
    from refbench.tasks.tne.models.chunker import chunk_texts

    if file is not None:
        from refbench.core.io import read_text

        text = read_text(file)
        if not text.strip():
            raise RefbenchError("the file is empty", path=file)
    if not text:
        raise UsageError("give TEXT or --file")
    chunks = next(chunk_texts([text]))
    if as_json:
        print_json([{"text": c.text, "first_char": c.first_char, "last_char": c.last_char,
                     "measure": c.measure} for c in chunks])
        return
    for c in chunks:
        click.echo(f"{c.first_char:>6}-{c.last_char:<6} {c.text}" + ("  [time/measure]"
                                                                    if c.measure else ""))


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne train --data ../shared/data/tne/train-reconstructed-v1.1.jsonl.gz "
        "--dev ../shared/data/tne/dev.jsonl.gz --out models/tne-look --limit 4 --dev-limit 2 "
        "--epochs 2 --max-steps 4 --threads 1  # a first look: stops after 4 steps",
        "refbench tne train --data ../shared/data/tne/train-reconstructed-v1.1.jsonl.gz "
        "--dev ../shared/data/tne/dev.jsonl.gz --out models/tne-look --limit 4 --dev-limit 2 "
        "--epochs 2 --threads 1 --resume  # the rest: a (toy) model in models/tne-look",
        'refbench tne enrich --model models/tne-look "The roof of the house in the town fell."',
        "refbench tne train --data ../shared/data/tne/train-reconstructed-v1.1.jsonl.gz "
        "--dev ../shared/data/tne/dev.jsonl.gz --out models/tne --epochs 4 --threads 1  "
        "# needs: hours of CPU (add --resume after an interruption)")))
@click.option("--data", type=DATA, required=True, help="Labelled TNE documents (any release).")
@click.option("--dev", type=DATA, default=None,
              help="Documents for model selection (default: the last 10% of --data).")
@click.option("--out", type=OUT_DIR, required=True, help="Model folder.")
@click.option("--head", type=click.Choice(["coupled", "decoupled"]), default="coupled",
              show_default=True, help="coupled or decoupled.")
@click.option("--epochs", type=POSITIVE, default=3, show_default=True)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=5e-5,
              show_default=True, help="Encoder rate.")
@click.option("--head-lr", type=click.FloatRange(min=0, min_open=True), default=1e-3,
              show_default=True, help="Rate of the NP and pair MLPs.")
@click.option("--pos-weight", type=click.FloatRange(min=0, min_open=True), default=4.0,
              show_default=True, help="Loss weight of linked pairs against unlinked ones.")
@click.option("--warmup-steps", type=COUNT, default=300, show_default=True)
@click.option("--limit", type=POSITIVE, default=None, help="Train on the first N documents only.")
@click.option("--dev-limit", type=POSITIVE, default=None,
              help="Select on the first N dev documents.")
@click.option("--max-steps", type=POSITIVE, default=None,
              help="Stop (with a checkpoint) once this many steps (documents) are done in all.")
@click.option("--checkpoint-every", type=POSITIVE, default=200, show_default=True,
              help="Steps between checkpoints (also at every epoch end).")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
@click.option("--threads", type=POSITIVE, default=None, help="CPU threads for torch.")
@click.option("--seed", type=SEED, default=13, show_default=True)
@click.option("--resume", is_flag=True, help="Continue from DIR/checkpoint.pt (must exist).")
@click.option("--json", "as_json", is_flag=True, help="Print the training report as JSON.")
def train(data: Path, dev: Path | None, out: Path, head: str, epochs: int, lr: float,
          head_lr: float, pos_weight: float, warmup_steps: int, limit: int | None,
          dev_limit: int | None, max_steps: int | None, checkpoint_every: int, device: str,
          threads: int | None, seed: int, resume: bool, as_json: bool) -> None:
    """Train the span-pair model (MiniLM encoder, NP = first + last token vectors, anchor and
    complement MLPs, pair MLP; multi-label targets), one document per step, selecting the
    epoch and the link threshold on dev; checkpoints every N steps, --resume continues exactly.
    """
    from refbench.core.trainer import TrainJob, note_training_kept
    from refbench.tasks.selection import check_selection
    from refbench.tasks.tne.models.train import TneTrainer

    set_threads(threads)
    given = {"head": head, "epochs": epochs, "lr": lr, "head_lr": head_lr,
             "pos_weight": pos_weight, "warmup_steps": warmup_steps, "limit": limit,
             "dev_limit": dev_limit, "max_steps": max_steps,
             "checkpoint_every": checkpoint_every}
    trainer = TneTrainer(None, **{k: v for k, v in given.items() if v is not None})
    job = TrainJob(data=data, dev=dev, out=out, seed=seed, resume=resume, device=device,
                   progress=not as_json)
    check_selection(job)
    note_training_kept(out)
    report = trainer.train(job)
    if as_json:
        print_json(report)
    else:
        click.echo(trainer.done(report, job))


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne predict --model models/tne --data "
        "../shared/data/tne/test.jsonl.gz --out runs/tne-model  # needs: a trained model "
        "(refbench tne train --help)")))
@click.option("--model", "model_dir", type=PATH, required=True, help="A trained model folder.")
@click.option("--data", type=DATA, required=True, help="TNE documents.")
@click.option("--out", type=OUT_DIR, required=True,
              help="Run folder (predictions.jsonl, metrics.json).")
@click.option("--leaderboard", is_flag=True,
              help="Also export the predictions in the leaderboard format (leaderboard.jsonl "
                   "in the run folder).")
@click.option("--scores", is_flag=True,
              help="Keep what UPrep-Acc needs: every pair's preposition scores (in "
                   "predictions.jsonl, large; with --leaderboard, each pair's best preposition "
                   "in leaderboard.jsonl too).")
@click.option("--system", default=None,
              help="Name in tables and the store (default: the model spec, tne-model:DIR).")
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--no-store", is_flag=True, help="Do not record the run in the store.")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
def predict(model_dir: Path, data: Path, out: Path, leaderboard: bool, scores: bool,
            system: str | None, store: Path | None, no_store: bool, device: str) -> None:
    """Predict the NP relations of every document into a run folder recorded in the results
    store (as refbench run does), scored when the data is labelled."""
    from refbench.tasks.tne.models.model import TneModel
    from refbench.tasks.tne.read import read_documents
    from refbench.tasks.tne.run_folder import model_spec, printed_figures, tne_run_metrics

    docs = read_documents(data)  # the data's problems are named before a model is loaded
    model = TneModel(model_dir, device=device)
    results = model.predict(docs, progress=True)
    spec, fp = model_spec(model_dir)
    metrics = tne_run_metrics(docs, [r for r, _ in results], data, out, model=spec,
                              fingerprint=fp, system=system, leaderboard=leaderboard,
                              scores=[s for _, s in results] if scores else None,
                              config={"model_dir": str(model_dir.resolve())})
    m = _LENT[0].record_run(metrics, out, store=store, no_store=no_store)
    click.echo(f"{m['system']} on {data.name}: labeled P / R / F1 {printed_figures(m)} "
               f"({len(docs)} documents; percent)")
    click.echo(_where({**m, "out": str(out)}))


@tne.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench tne enrich --model models/tne \"The roof of the house in the town "
        "fell.\"  # needs: a trained model (refbench tne train --help)")))
@click.argument("text")
@click.option("--model", "model_dir", type=PATH, required=True, help="A trained model folder.")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def enrich(text: str, model_dir: Path, device: str, as_json: bool) -> None:
    """Chunk a text, predict its NP relations, and print each NP with its relations (the
    paper's Figure 2)."""
    from refbench.tasks.tne.models.model import TneModel

    model = TneModel(model_dir, device=device)  # first: a bad folder fails before spaCy loads
    from refbench.tasks.tne.models.chunker import nlp
    from refbench.tasks.tne.models.enrich import enrich_text

    nps, relations = enrich_text(text, model, nlp())
    if as_json:
        print_json({"nps": nps, "relations": relations})
        return
    by_anchor: dict[str, list[str]] = {}
    for r in relations:
        by_anchor.setdefault(r["anchor"], []).append(f"{r['preposition']} {r['complement_text']}")
    for np in nps:
        rels = by_anchor.get(np["id"], [])
        click.echo(f"{np['text']}" + (f"  [{'; '.join(rels)}]" if rels else ""))


def commands(services: CommandServices) -> list[click.Command]:
    """``refbench tne``; ``baseline`` and ``predict`` record their runs through
    ``services``."""
    _LENT[:] = [services]
    return [tne]

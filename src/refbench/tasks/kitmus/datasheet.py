"""DATASHEET.md for a generated suite, and the occupation/situation root-word overlap.

The root overlap measures a shallow cue: how many occupations share a word root with their own
situation ("firefighter" / "putting out fires"). The paper reports 45% for its real pool.
"""

from __future__ import annotations

from typing import Any

from refbench.tasks.kitmus.resources import Resources

_SUFFIXES = ("ists", "ians", "ings", "ers", "ors", "ies", "ist", "ian", "ing", "ers", "er", "or",
             "es", "ed", "s", "y", "e")
_FUNCTION_TAGS = ("DT", "IN", "CC", "TO", "PRP", "PRP$", "WRB", "MD", "RP", "POS", ".", ",")


def word_root(word: str) -> str:
    """A crude stem: strip one common suffix while at least four letters remain."""
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def shares_root(a: str, b: str) -> bool:
    ra, rb = word_root(a), word_root(b)
    if len(ra) < 4 or len(rb) < 4:
        return ra == rb
    return ra in b.lower() or rb in a.lower()


def root_overlap(res: Resources, occupation_source: str, situation_source: str) -> float:
    """Share of occupation rows whose occupation shares a root with a word of its situation."""
    occs = res.occupations.get(occupation_source, ())
    sits = res.situations.get(situation_source, ())
    if not occs or not sits:
        return 0.0
    hits = 0
    for occ, sit in zip(occs, sits, strict=True):
        content = [w for w, t in sit if t not in _FUNCTION_TAGS]
        if any(shares_root(o, s) for o, _ in occ for s in content):
            hits += 1
    return round(hits / len(occs), 4)


def _table(rows: list[list[str]], header: list[str]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


KITMUS_BIBTEX = """@inproceedings{arodi-etal-2023-kitmus,
    title = "The {KITMUS} Test: Evaluating Knowledge Integration from Multiple Sources",
    author = "Arodi, Akshatha and P{\\"o}msl, Martin and Suleman, Kaheer and
              Trischler, Adam and Olteanu, Alexandra and Cheung, Jackie Chi Kit",
    booktitle = "Proceedings of the 61st Annual Meeting of the Association for
                 Computational Linguistics (Volume 1: Long Papers)",
    month = jul,
    year = "2023",
    address = "Toronto, Canada",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2023.acl-long.841",
    doi = "10.18653/v1/2023.acl-long.841",
    pages = "15088--15108",
}"""


def refbench_bibtex(version: str) -> str:
    return ("@software{refbench,\n"
            "    title = {refbench: a toolkit for knowledge-intensive reference resolution},\n"
            "    author = {{refbench contributors}},\n"
            f"    version = {{{version}}},\n"
            "    note = {KITMUS suite generator, readers, models and scorers},\n"
            "}")


def _provenance(stats: dict[str, Any]) -> list[str]:
    prov = stats.get("provenance", {})
    res = stats["resources"]
    commit = prov.get("git_commit")
    if commit is None:
        commit_text = "not run from a git checkout (an installed refbench)"
    else:
        commit_text = f"`{commit}`" + (" with uncommitted changes to src/refbench"
                                        if prov.get("git_dirty") else "")
    return [
        "## Provenance",
        f"- refbench version: {stats['refbench_version']}",
        f"- git commit: {commit_text}",
        f"- resource folder: `{prov.get('resources_path', res['source'])}` "
        f"({res.get('layout', res['source'])} layout)",
        f"- resource hash (sha256 over every file's sha256, listed in stats.json): "
        f"`{res['fingerprint']}`",
        f"- generator fingerprint: `{prov.get('generator_fingerprint', '-')}`",
        f"- seed: {stats['seed']}",
        "",
        "Regenerate (into a new folder DIR; the same refbench commit and resources give these",
        "files byte for byte, this section aside):",
        "",
        "```",
        stats["command"],
        "```",
        "",
    ]


def _licence_and_citation(stats: dict[str, Any]) -> list[str]:
    return [
        "## Licence",
        f"Resources: {stats['resources'].get('licence', 'not recorded')}.",
        "The generated text is made of these resources' words; share the suite under terms",
        "compatible with them, and cite the KITMUS paper and refbench.",
        "",
        "## Citation",
        "```bibtex",
        KITMUS_BIBTEX,
        "",
        refbench_bibtex(stats["refbench_version"]),
        "```",
        "",
    ]


INTENDED_USE = [
    "## Intended use and limitations",
    "- Use: a diagnostic test of whether a coreference or reference-resolution model combines",
    "  entity-specific knowledge given in the text with background knowledge (from its",
    "  parameters, from the text, or fictional and only in the text). Report the test split;",
    "  train on the train split only, select on validation.",
    "- Not a measure of general coreference ability: texts are templated, short and",
    "  synthetic; every entity is a fictional person named by a surname; English only.",
    "- Shallow cues remain: occupations may share word roots with their situations (see",
    "  Resources), and a model can learn the templates. Compare against the random baseline",
    "  and the variants, not against natural-text benchmarks.",
    "- Pools differ in difficulty: refbench's built-in pool and the official KITMUS resources",
    "  give different suites, so figures are comparable only between suites generated from",
    "  the same resources (see Provenance). The official name list contains surnames that are",
    "  also pronoun words (e.g. He, Her).",
    "- Names come from census data and carry no gender cue by design; the pronoun mix is",
    "  he/she 40% each, singular they and neopronouns 10% each.",
    "",
]


def render_datasheet(stats: dict[str, Any]) -> str:
    """The suite's DATASHEET.md. Each section is a list of lines; a further section (e.g. a
    difficulty profile) is one more ``sections.append(...)`` before the Files section."""
    from refbench.tasks.kitmus.difficulty import difficulty_section

    sections: list[list[str]] = [
        _overview(stats),
        _resources(stats),
        _contents(stats),
        difficulty_section(stats),
        INTENDED_USE,
        _provenance(stats),
        _licence_and_citation(stats),
    ]
    sections.append(FILES)
    return "\n".join(line for section in sections for line in section)


def _overview(stats: dict[str, Any]) -> list[str]:
    return [
        "# KITMUS suite: datasheet",
        "",
        f"Generated by refbench {stats['refbench_version']} with seed {stats['seed']} (how to "
        "regenerate it: Provenance, below).",
        "",
        "## What it is",
        "A diagnostic coreference test suite (KITMUS, Arodi et al., ACL 2023). Each instance",
        "introduces 2-4 fictional entities with their occupations (entity-specific knowledge),",
        "lets them meet at a location, optionally adds a location noise sentence, and places one",
        "of them in the situation typical of its occupation, referred to by a pronoun. Resolving",
        "the pronoun needs the entity's occupation and the background knowledge that maps",
        "occupations to situations. Variants differ in where that background knowledge is:",
        "only in model parameters (background-pretrain), also in the text (background-both), or",
        "only in the text with fictional occupations and/or situations (background-inference-*).",
        "",
        "Variants are paired: instance i of every variant has the same names, occupation rows,",
        "answer, pronoun, location and templates. Train, validation and test draw from disjoint",
        "names, occupations, locations, templates and noise sentences.",
        "",
    ]


def _resources(stats: dict[str, Any]) -> list[str]:
    res = stats["resources"]
    pools = res["pool_sizes"]
    return [
        "## Resources",
        f"- source: {res['source']} (fingerprint `{res['fingerprint'][:16]}`)",
        f"- pools: {pools['names']} names, {pools['occupations']} occupations, "
        f"{pools['locations']} locations in {pools['location_kinds']} kinds, "
        f"{pools['noise']} noise sentences, templates "
        + ", ".join(f"{k} {v}" for k, v in pools["templates"].items()),
        "- pools too small to split (shared by all splits): "
        + (", ".join(res["shared_between_splits"]) or "none"),
        "- occupation/situation root-word overlap (paper: 45% on its real pool): "
        + ", ".join(f"{k} {v:.1%}" for k, v in stats["occupation_situation_root_overlap"].items()),
        "",
    ]


def _contents(stats: dict[str, Any]) -> list[str]:
    cfg = stats["config"]
    counts = [[j["variant"], str(j["n_entities"]), j["split"], str(j["instances"]),
               str(j["with_noise"]),
               " ".join(f"{k}:{v}" for k, v in j["answer_meet_position"].items())]
              for j in stats["jobs"]]
    overlap_rows = [[pair, *(str(v) for v in o.values())] for pair, o in
                    stats["split_overlap"].items()]
    overlap_header = ["splits", *next(iter(stats["split_overlap"].values()), {}).keys()]
    return [
        "## Contents",
        f"{stats['instances']} instances; variants {', '.join(cfg['variants'])}; entities "
        f"{', '.join(map(str, cfg['entities']))}; splits "
        + ", ".join(f"{s} ({cfg['sizes'][s]})" for s in cfg["splits"])
        + f"; formats {', '.join(cfg['formats'])}.",
        "",
        "Pronoun distribution (all instances): "
        + ", ".join(f"{k} {v:.1%}" for k, v in stats["pronoun_distribution"].items()),
        "",
        _table(counts, ["variant", "entities", "split", "instances", "with noise",
                        "answer position in the meet sentence"]),
        "",
        "## Split overlap (shared items; 0 everywhere means disjoint)",
        f"Disjoint: {'yes' if stats['split_overlap_ok'] else 'NO'}"
        + (" (except the pools too small to split, listed under Resources)"
           if stats["split_overlap_ok"] and stats["resources"]["shared_between_splits"]
           else ""),
        "",
        _table(overlap_rows, overlap_header) if overlap_rows else "(only one split generated)",
        "",
    ]


FILES = [
    "## Files",
    "- `<variant>/subtask_<n>_ents/<split>.jsonl`: refbench native JSONL, every field explicit",
    "  (mention spans: sentence index into `sentences`, start and end token, end inclusive).",
    "- `<variant>/subtask_<n>_ents/<view>/<split>.v4_gold_conll`: CoNLL-2012, POS tags, one",
    "  cluster per entity over all its mentions, knowledge text included in full-text.",
    "- `.jsonlines` (e2e-coref), `.txt` (id line, text line, blank line), and GAP `.tsv`",
    "  (2-entity subtasks, views with the pronoun; A and B in meet-sentence order).",
    "- Views: full-text, task-text-only, knowledge-text-only. Document ids are the same in",
    "  every view and format: `kitmus/<variant>/subtask_<n>_ents/<split>:<index>`.",
    "",
]

"""What a WinoBias release holds and where it slips: every oddity across its 16 files.

The 8 sentence files: numbering, brackets, occupations named (the candidates), a determiner
written twice ("notified the [the chief]"), a third occupation named, a candidate named twice,
more than one bracketed pronoun, pronouns of both genders, the pro/anti label against the
occupation lists, a pro sentence and its anti twin differing in more than the pronouns, and
possessives written apart ("the farmer 's"). The 8 CoNLL files: 396 documents each, the same
tokens as the sentence with the same number, one cluster, the bracketed spans.

Oddities are read, never fatal: :func:`check_release` counts them so that a test pins the
counts on the release and ``refbench winobias check`` lists them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import format_name
from refbench.formats.conll2012 import read_conll
from refbench.tasks.winobias.read import (
    PRONOUN_GENDER,
    SPLITS,
    FileKind,
    Sentence,
    file_kind,
    occupations,
    read_sentences,
    sentence_instance,
)

EXPECTED_LINES = 396  # sentences (documents) per released file
SWAP = {"he": "she", "him": "her", "his": "her", "himself": "herself", "she": "he",
        "her": "him|his", "herself": "himself", "hers": "his"}
# Slips of the release (each one read, and listed) ...
KINDS = ("unreadable", "numbering", "duplicate_determiner", "bracket_span", "third_occupation",
         "mixed_pronoun_genders", "stereotype_label", "pro_anti_differ", "conll_documents",
         "conll_tokens", "conll_clusters")
# ... and features of its design, counted but not oddities.
NOTES = ("several_pronouns", "repeated_occupation", "detached_possessive")
# Oddities that make the release unusable as published (``winobias check`` exits 1): lines
# refbench cannot read, numbering, labels against the occupation lists, CoNLL files that do
# not match their sentences. The others are the release's known slips, read as they are.
PROBLEMS = ("unreadable", "numbering", "stereotype_label", "conll_documents", "conll_tokens",
            "conll_clusters")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text.lower())


def _twins(pro: str, anti: str) -> bool:
    """The two sentences are the same but for the pronouns' gender."""
    a, b = _words(pro), _words(anti)
    return len(a) == len(b) and all(
        x == y or y in SWAP.get(x, "").split("|") for x, y in zip(a, b, strict=True))


def sentence_oddities(s: Sentence, kind: FileKind, *, path: Path,
                      occs: dict[str, str]) -> list[tuple[str, str]]:
    """(kind, detail) for each oddity of one line."""
    out: list[tuple[str, str]] = []
    if re.search(r"(?<!\w)(the|a|an) \[(the|a|an) ", s.raw, re.I):
        out.append(("duplicate_determiner", "a determiner before and inside the brackets"))
    for a, b in s.brackets:
        span = s.text[a:b]
        if span.lower() not in PRONOUN_GENDER and not re.fullmatch(r"(?:the|a|an) \S.*\S", span,
                                                                    re.I):
            before = s.text[max(0, a - 4):a]
            out.append(("bracket_span", f"antecedent bracket [{span}] after {before!r}: not "
                                        "'the OCCUPATION'"))
    distinct = list(dict.fromkeys(o for o, _, _ in s.mentions))
    if len(distinct) > 2:
        out.append(("third_occupation", f"names {', '.join(distinct)}"))
    repeated = [o for o, n in Counter(o for o, _, _ in s.mentions).items() if n > 1]
    if repeated:
        out.append(("repeated_occupation", f"{', '.join(repeated)} named more than once"))
    pronouns = [s.text[a:b].lower() for a, b in s.brackets
                if s.text[a:b].lower() in PRONOUN_GENDER]
    if len(pronouns) > 1:
        out.append(("several_pronouns", f"bracketed pronouns {', '.join(pronouns)}"))
    genders = {PRONOUN_GENDER[w] for w in _words(s.text) if w in PRONOUN_GENDER}
    if len(genders) > 1:
        out.append(("mixed_pronoun_genders", "male and female pronouns"))
    if " 's" in s.text:
        out.append(("detached_possessive", "a possessive 's written apart"))
    try:
        inst = sentence_instance(s, kind, path=path, occs=occs)
    except RefbenchError as exc:
        out.append(("unreadable", exc.message))
        return out
    agrees = inst.metadata["pronoun_gender"] == inst.metadata["gold_occupation_gender"]
    if agrees != (kind.stereotype == "pro"):
        out.append(("stereotype_label",
                    f"{inst.metadata['pronoun']} refers to {inst.metadata['gold_occupation']} "
                    f"(a {inst.metadata['gold_occupation_gender']} occupation) in a "
                    f"{kind.stereotype} file"))
    return out


def check_text_file(path: Path, findings: list[dict[str, Any]]) -> list[Sentence]:
    kind = file_kind(path)
    occs = occupations(path.parent)
    sentences = list(read_sentences(path))
    for k, s in enumerate(sentences, start=1):
        where = {"file": path.name, "line": s.line, "number": s.number, "text": s.raw}
        if s.number != k:
            findings.append({**where, "kind": "numbering", "detail": f"number {s.number} "
                             f"on the {k}th sentence"})
        for name, detail in sentence_oddities(s, kind, path=path, occs=occs):
            findings.append({**where, "kind": name, "detail": detail})
    return sentences


def check_conll(path: Path, sentences: list[Sentence], findings: list[dict[str, Any]]) -> int:
    by_number = {s.number: s for s in sentences}
    docs = list(read_conll(path))
    if len(docs) != len(sentences):
        findings.append({"file": f"conll_format/{path.name}", "kind": "conll_documents",
                         "detail": f"{len(docs)} documents for {len(sentences)} sentences"})
    for d in docs:
        where = {"file": f"conll_format/{path.name}", "line": d.first_line, "doc": d.doc_id}
        number = int(d.doc_id.rsplit("/", 1)[-1]) + 1 if d.doc_id.rsplit("/", 1)[-1].isdigit() \
            else None
        s = by_number.get(number) if number is not None else None
        if s is None:
            findings.append({**where, "kind": "conll_documents",
                             "detail": "no sentence numbered one more than the document"})
            continue
        tokens = "".join(w for sent in d.sentences for w, _ in sent)
        if tokens != re.sub(r"\s", "", s.text):
            findings.append({**where, "kind": "conll_tokens",
                             "detail": f"tokens differ from sentence {s.number}"})
        marked = sorted("".join(d.words(m).split()) for c in d.clusters.values() for m in c)
        brackets = sorted(re.sub(r"\s", "", s.text[a:b]) for a, b in s.brackets)
        if len(d.clusters) != 1 or marked != brackets:
            findings.append({**where, "kind": "conll_clusters",
                             "detail": f"{len(d.clusters)} cluster(s) marking {marked}, "
                                       f"brackets {brackets}"})
    return len(docs)


def conll_path(folder: Path, kind: FileKind) -> Path:
    return folder / "conll_format" / \
        f"{kind.split}_type{kind.type}_{kind.stereotype}_stereotype.v4_auto_conll"


def check_release(folder: str | Path) -> dict[str, Any]:
    """Every oddity of the release folder's 16 files, with counts per kind and per file."""
    folder = Path(folder)
    findings: list[dict[str, Any]] = []
    files: dict[str, int] = {}
    texts: dict[tuple[str, int, str], list[Sentence]] = {}
    for split in SPLITS:
        for t in (1, 2):
            for st in ("pro", "anti"):
                path = folder / f"{st}_stereotyped_type{t}.txt.{split}"
                kind = file_kind(path)
                texts[(split, t, st)] = check_text_file(path, findings)
                files[path.name] = len(texts[(split, t, st)])
                cpath = conll_path(folder, kind)
                files[f"conll_format/{cpath.name}"] = check_conll(cpath, texts[(split, t, st)],
                                                                  findings)
            pro = {s.number: s for s in texts[(split, t, "pro")]}
            for a in texts[(split, t, "anti")]:
                p = pro.get(a.number)
                if p is not None and not _twins(p.text, a.text):
                    findings.append({"file": f"pro/anti_stereotyped_type{t}.txt.{split}",
                                     "line": a.line, "number": a.number, "kind":
                                     "pro_anti_differ", "detail": f"pro: {p.raw!r}",
                                     "text": a.raw})
    counts = Counter(f["kind"] for f in findings)
    odd = [f for f in findings if f["kind"] in KINDS]
    problems = [f"{counts[k]} {k}" for k in PROBLEMS if counts.get(k)]
    if not all(n == EXPECTED_LINES for n in files.values()):
        problems.insert(0, f"files not of {EXPECTED_LINES} sentences each")
    return {"folder": str(folder), "ok": not problems, "problems": problems,
            "files": files, "n_files": len(files),
            "sizes_as_published": all(n == EXPECTED_LINES for n in files.values()),
            "counts": {k: counts.get(k, 0) for k in KINDS},
            "notes": {k: counts.get(k, 0) for k in NOTES},
            "by_file": dict(sorted(Counter(f["file"] for f in odd).items())),
            "n_oddities": len(odd), "n_oddity_lines": len({(f["file"], f.get("line"))
                                                             for f in odd}),
            "findings": findings}


def check_text(report: dict[str, Any], *, examples: int = 5) -> str:
    """The report for people: counts per kind, then a few quoted lines of each."""
    sizes = "" if report["sizes_as_published"] else f" (NOT {EXPECTED_LINES} sentences each)"
    lines = [f"WinoBias release {report['folder']}: {report['n_files']} files{sizes}, "
             f"{report['n_oddities']} oddities on {report['n_oddity_lines']} lines"]
    for kind, n in [*report["counts"].items(), *report["notes"].items()]:
        if kind == NOTES[0]:
            lines.append("  features of the design (not oddities):")
        lines.append(f"  {kind:<24} {n}")
        shown = [f for f in report["findings"] if f["kind"] == kind][:examples]
        for f in shown:
            lines.append(f"      {f['file']}:{f.get('line', '')} {f['detail']}: "
                         f"{f.get('text', f.get('doc', ''))}")
    lines.append("OK (the oddities above are the release's known slips)" if report["ok"]
                 else "problems: " + "; ".join(report["problems"]))
    return "\n".join(lines)


def is_release_file(path: Path) -> bool:
    return format_name(path).startswith(("pro_stereotyped", "anti_stereotyped"))

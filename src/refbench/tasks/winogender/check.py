"""``refbench winogender check``: what a Winogender folder holds and whether its gold agrees.

The gold answer of a sentence is in its id (``occupation.participant.answer.gender.txt``); the
check reads every sentence against ``templates.tsv`` (the sentence must be the template with
that answer, filled in) and lists every disagreement instead of stopping at the first. It also
counts what the paper's figures rest on: genders, "someone" sentences, template x participant
groups, occupations with statistics and the "gotcha" sentences.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.winogender.read import GENDERS, load_release, read_winogender

PUBLISHED = {"sentences": 720, "templates": 120, "occupations": 60}  # Rudinger et al., sec. 2


def check_release(path: str | Path) -> dict[str, Any]:
    release = load_release(path)
    skipped = InvalidInstances()
    insts = list(read_winogender(path, on_invalid=skipped))
    groups = Counter(str(i.metadata["group"]) for i in insts)
    occupations = {str(i.metadata["occupation"]) for i in insts}
    gotcha = [i for i in insts if i.metadata.get("gotcha")]
    found = {"sentences": len(release.rows),
             "templates": len(release.templates) if release.templates is not None else None,
             "occupations": len(occupations)}
    report = {
        "file": str(release.sentences),
        "templates_beside": release.templates is not None,
        "stats_beside": release.stats is not None,
        "published": {k: {"expected": v, "found": found[k], "ok": found[k] == v}
                      for k, v in PUBLISHED.items()},
        "instances": len(insts),
        "gold": {"occupation": sum(i.gold == 0 for i in insts),
                 "participant": sum(i.gold == 1 for i in insts)},
        "genders": {g: sum(i.metadata["gender"] == g for i in insts) for g in GENDERS},
        "someone": sum(bool(i.metadata["someone"]) for i in insts),
        "groups": len(groups), "complete_groups": sum(n == len(GENDERS)
                                                      for n in groups.values()),
        "occupations_without_stats": sorted(o for o in occupations if release.stats is not None
                                            and o not in release.stats),
        "gotcha": {"n": len(gotcha),
                   "male": sum(i.metadata["gender"] == "male" for i in gotcha),
                   "female": sum(i.metadata["gender"] == "female" for i in gotcha)}
        if release.stats is not None else None,
        "disagreements": skipped.skipped, "n_disagreements": len(skipped),
    }
    report["truncated"] = truncated(release.sentences, report)
    report["problems"] = problems(report)
    report["ok"] = not report["problems"]
    return report


def truncated(path: Path, r: dict[str, Any]) -> list[dict[str, Any]]:
    """The files of the folder that end mid-record (a last line with no line end: a cut
    download or copy), each with that line; the cut line's disagreement with its template is
    the cut, not a disagreement, and is taken out of ``r``."""
    out = []
    for f in (path, path.with_name("templates.tsv"), path.with_name("occupations-stats.tsv")):
        try:
            data = f.read_bytes()
        except OSError:
            continue
        if data and not data.endswith(b"\n"):
            line = data.count(b"\n") + 1
            out.append({"file": str(f), "line": line})
            cut = f"{f}:{line}:"
            r["disagreements"] = [d for d in r["disagreements"]
                                  if not str(d["where"]).startswith(cut)]
            if f.name == "templates.tsv":  # every sentence of a cut template disagrees
                r["disagreements"] = [d for d in r["disagreements"]
                                      if f"templates.tsv:{line} " not in str(d["reason"])]
            r["n_disagreements"] = len(r["disagreements"])
    return out


def problems(r: dict[str, Any]) -> list[str]:
    """What makes the release unusable as the paper's data (``winogender check`` exits 1):
    counts other than the published ones (a truncated or partial file), groups lacking a
    gender, sentences disagreeing with their template or id, occupations without statistics."""
    out = [f"truncated: {t['file']} ends mid-record (line {t['line']} has no line end: the "
           "file was cut short)" for t in r.get("truncated", [])]
    out += [f"{k}: {p['found']}, published {p['expected']}" for k, p in r["published"].items()
            if p["found"] is not None and not p["ok"]]
    if r["complete_groups"] != r["groups"]:
        out.append(f"{r['groups'] - r['complete_groups']} template x participant groups lack a "
                   "gender")
    if r["n_disagreements"]:
        out.append(f"{r['n_disagreements']} sentences disagree with their template or id")
    if r["occupations_without_stats"]:
        out.append(f"{len(r['occupations_without_stats'])} occupations have no statistics")
    return out


def check_text(r: dict[str, Any]) -> str:
    lines = [f"{r['file']}: {r['instances']} sentences read"
             + ("" if r["templates_beside"] else " (no templates.tsv beside it: gold from the "
                "ids alone, unchecked)")]
    for k, p in r["published"].items():
        if p["found"] is not None:
            lines.append(f"  {k}: {p['found']} (published {p['expected']}: "
                         f"{'ok' if p['ok'] else 'DIFFERENT'})")
    lines.append(f"  gold: occupation {r['gold']['occupation']}, participant "
                 f"{r['gold']['participant']}; genders " +
                 ", ".join(f"{g} {n}" for g, n in r["genders"].items()) +
                 f"; 'someone' {r['someone']}")
    lines.append(f"  template x participant groups: {r['groups']} ({r['complete_groups']} with "
                 "all three genders)")
    if r["gotcha"] is not None:
        g = r["gotcha"]
        lines.append(f"  gotcha sentences: {g['n']} (he {g['male']}, she {g['female']})")
    lines += [f"  TRUNCATED: {t['file']} ends mid-record at line {t['line']}"
              for t in r.get("truncated", [])]
    lines.append(f"  sentences disagreeing with their template or id: {r['n_disagreements']}")
    lines += [f"    {d['where']}: {d['reason']}" for d in r["disagreements"]]
    lines.append("OK" if r["ok"] else f"{len(r['problems'])} problem(s): "
                 + "; ".join(r["problems"]))
    return "\n".join(lines)

"""TNE corpus statistics beside the paper's Table 3, with the counting definitions that
reproduce its figures exactly on the released files (checked on train, dev, test and OOD with
its Books, IMDB and Reddit parts, and on all of them together).

Reproduced exactly (every column of Table 3):

- tokens: every entry of ``tokens``, whitespace tokens ("\\n\\n") included;
- NP-links: every ``np_relations`` entry, so a pair with two prepositions counts twice and the
  few entries the release lists twice count twice (this is the number of links, not of pairs);
- coreference clusters: clusters with two or more members (singletons are not clusters here);
- coreference links: distinct (anchor, complement's cluster) pairs: a link is to a cluster;
- average surface distance: mean over links of the distance between the first tokens of anchor
  and complement;
- average symmetric links: per document, the links whose reverse pair is also linked, halved,
  averaged over documents;
- % title links: per document, the share of links whose complement lies in the title (the first
  line), averaged over documents with links (so OOD-all is not the pooled share);
- % backward relations: share of links whose complement starts before the anchor.

Not reproduced (refbench's reading is printed, marked, beside the paper's figure): % surface
form (refbench: the text between the spans is exactly the preposition; 2.0 vs 2.9 on test),
% surface-form+ (complement at most 10 tokens after the anchor with the preposition between
them; 4.1 vs 4.6) and % intersentential (sentences split at . ! ? and line breaks; 78.9 vs
85.5; spaCy's parser gives 76.5): the paper does not say how it found sentences or surface
forms. Average transitive relations is left out (None): no count of triples tried comes near
the paper's (sets of three NPs a, b, c linked a-b, b-c, a-c: 525 per test document vs 144.2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from refbench.tasks.tne.read import NPDocument, read_tne

COLUMNS = ("train", "dev", "test", "books", "imdb", "reddit", "ood", "all")
_T3 = {  # the paper's Table 3, in COLUMNS order
    "documents": (3988, 500, 500, 170, 169, 170, 509, 5497),
    "tokens": (651835, 81741, 77618, 30133, 29285, 27181, 86599, 897793),
    "nps": (143406, 17815, 17521, 6502, 6099, 5803, 18404, 197146),
    "np_links": (744513, 103668, 120198, 22886, 25164, 10228, 58278, 1026657),
    "coref_clusters": (21473, 2598, 2581, 773, 759, 821, 2353, 29005),
    "coref_links": (354734, 51776, 56443, 11847, 11798, 5347, 28992, 491945),
    "avg_surface_distance": (53.9, 52.8, 52.6, 53.6, 58.2, 47.9, 54.6, 53.7),
    "avg_symmetric_links": (10.2, 12.6, 14.3, 6.7, 26.5, 1.7, 11.6, 10.9),
    "avg_transitive": (95.5, 119.2, 144.2, 52.8, 64.5, 14.8, 44.0, 97.3),
    "pct_title_links": (13.6, 12.7, 12.0, 8.3, 13.7, 25.4, 15.8, 13.6),
    "pct_backward": (56.9, 56.0, 55.7, 56.7, 56.6, 57.3, 56.8, 56.7),
    "pct_surface_form": (4.0, 3.5, 2.9, 4.3, 2.7, 5.4, 4.1, 3.9),
    "pct_surface_form_plus": (6.3, 5.6, 4.6, 6.8, 3.5, 7.2, 5.9, 6.0),
    "pct_intersentential": (84.4, 85.1, 85.5, 79.8, 87.7, 83.2, 83.8, 84.6),
}
PAPER_TABLE3: dict[str, dict[str, float]] = {
    col: {stat: values[i] for stat, values in _T3.items()}
    for i, col in enumerate(COLUMNS)}
STATISTICS = tuple(_T3)
COUNTS = ("documents", "tokens", "nps", "np_links", "coref_clusters", "coref_links")
NOT_REPRODUCED = frozenset({"avg_transitive", "pct_surface_form", "pct_surface_form_plus",
                            "pct_intersentential"})
_LINK_STATS = frozenset(STATISTICS) - {"documents", "tokens", "nps", "coref_clusters"}
_SENTENCE_ENDS = frozenset({".", "!", "?"})

Link = tuple[str, str, str]


def links_of(doc: NPDocument) -> list[Link]:
    """Every (anchor, complement, preposition) entry of the document, repeats included."""
    rel = doc.relations or {}
    return [(a, c, p) for (a, c), preps in rel.items() for p in sorted(preps)] + list(
        doc.repeated_relations)


def domain(doc: NPDocument) -> str:
    """books, imdb, reddit or wikinews (the train file's null sources are Wikinews too)."""
    src = doc.source
    if src.startswith("reddit/"):
        return "reddit"
    return src if src in ("books", "imdb") else "wikinews"


def _sentence_of_token(tokens: Sequence[str]) -> list[int]:
    out, k = [], 0
    for t in tokens:
        out.append(k)
        if t in _SENTENCE_ENDS or not t.strip():
            k += 1
    return out


def _document_counts(doc: NPDocument) -> dict[str, float]:
    """The sums Table 3's statistics are made of, for one document."""
    n: dict[str, float] = defaultdict(float)
    n["documents"] = 1
    n["tokens"] = len(doc.tokens)
    n["nps"] = len(doc.nps)
    n["coref_clusters"] = sum(len(members) > 1 for _, members, _ in doc.clusters)
    if doc.relations is None:
        return n
    n["labelled_docs"] = 1
    by_id = {np.id: np for np in doc.nps}
    cluster = {m: cid for cid, members, _ in doc.clusters for m in members}
    links = links_of(doc)
    pairs = set(doc.relations)
    sentence = _sentence_of_token(doc.tokens)
    title_end, title = doc.title_end, 0
    n["np_links"] = len(links)
    n["coref_links"] = len({(a, cluster.get(c, c)) for a, c in pairs})
    n["symmetric"] = sum((c, a) in pairs for a, c, _ in links) / 2
    for a_id, c_id, prep in links:
        a, c = by_id[a_id], by_id[c_id]
        n["distance"] += abs(c.first_token - a.first_token)
        n["backward"] += c.first_token < a.first_token
        title += c.last_char <= title_end
        n["intersentential"] += sentence[a.first_token] != sentence[c.first_token]
        if 0 < c.first_token - a.last_token <= 10:  # both surface readings need it this close
            word = "of" if prep == "member(s) of" else prep
            between = [t.lower() for t in doc.tokens[a.last_token + 1:c.first_token]]
            n["surface"] += " ".join(between) == word
            n["surface_plus"] += word in between
    if links:
        n["title_share_sum"] = title / len(links)
        n["docs_with_links"] = 1
    return n


def _statistics(n: dict[str, float]) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {k: None for k in STATISTICS}
    out |= {k: int(n[k]) for k in COUNTS if k not in ("np_links", "coref_links")}
    links, docs = n["np_links"], n["labelled_docs"]
    if not docs:
        return out
    out |= {"np_links": int(links), "coref_links": int(n["coref_links"]),
            "avg_symmetric_links": n["symmetric"] / docs}
    if n["docs_with_links"]:
        out["pct_title_links"] = 100 * n["title_share_sum"] / n["docs_with_links"]
    if links:
        out["avg_surface_distance"] = n["distance"] / links
        for stat, key in (("pct_backward", "backward"), ("pct_surface_form", "surface"),
                          ("pct_surface_form_plus", "surface_plus"),
                          ("pct_intersentential", "intersentential")):
            out[stat] = 100 * n[key] / links
    return out  # avg_transitive stays None: no count of triples tried comes near the paper's


def table3_statistics(docs: Iterable[NPDocument]) -> dict[str, dict[str, float | int | None]]:
    """Statistics of all documents ("all") and, when they come from several domains, of each
    domain (books, imdb, reddit, wikinews)."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for doc in docs:
        counts = _document_counts(doc)
        for group in ("all", domain(doc)):
            for k, v in counts.items():
                sums[group][k] += v
    groups = sorted(g for g in sums if g != "all")
    return {"all": _statistics(sums["all"])} | (
        {g: _statistics(sums[g]) for g in groups} if len(groups) > 1 else {})


def paper_column(path: str | Path, group: str) -> str | None:
    """Table 3's column for a file (by its name: train, dev, test, ood; the official
    ood_books, ood_imdb, ood_reddit and ood_unlab(e)led files) and a group of it."""
    name = Path(path).name.lower()
    if group in ("books", "imdb", "reddit"):
        return group
    if group != "all":
        return None
    stem = name.split(".")[0]
    if stem.startswith("ood_"):  # one domain, one subreddit, or the unlabelled OOD file
        return "ood" if stem.startswith("ood_unlab") else {
            "ood_books": "books", "ood_imdb": "imdb", "ood_reddit": "reddit"}.get(stem)
    for column in ("train", "dev", "test", "ood"):
        if name.startswith(column):
            return column
    return None


def file_statistics(paths: Sequence[str | Path], *, total: bool = False,
                    progress: bool = False) -> dict[str, Any]:
    """Table 3 for each file, beside the paper's column for it; with ``total``, also for all
    the files together (Table 3's "all" column when they are train, dev, test and OOD)."""
    from tqdm import tqdm

    files = []
    every: list[NPDocument] = []
    for path in paths:
        docs = list(tqdm(read_tne(path), desc=Path(path).name, unit=" docs", leave=False,
                         disable=None if progress else True))  # None: only on a terminal
        if total:
            every.extend(docs)
        files.append({"path": str(path), "groups": _with_paper(table3_statistics(docs), path)})
    out: dict[str, Any] = {"files": files, "not_reproduced": sorted(NOT_REPRODUCED)}
    if total:
        stats = table3_statistics(every)["all"]
        out["total"] = {"statistics": stats, "paper_column": "all",
                        "paper": PAPER_TABLE3["all"]}
    return out


def _with_paper(groups: dict[str, dict[str, Any]], path: str | Path) -> dict[str, Any]:
    out = {}
    for group, stats in groups.items():
        column = paper_column(path, group)
        out[group] = {"statistics": stats, "paper_column": column,
                      "paper": PAPER_TABLE3.get(column) if column else None}
    return out


def _cell(stat: str, value: float | int | None, *, paper: bool) -> str:
    if value is None:
        return "-"
    if stat in COUNTS:
        return f"{int(value):,}"
    return f"{value:.1f}" if paper else f"{value:.2f}"


def _table(title: str, groups: dict[str, Any]) -> list[str]:
    names = list(groups)
    head1 = f"{'':24s}" + "".join(
        f"{g + ' (paper: ' + (groups[g]['paper_column'] or 'none') + ')':>24s}" for g in names)
    head2 = f"{'statistic':24s}" + f"{'refbench':>13s}{'paper':>11s}" * len(names)
    lines = [title, head1, head2]
    for stat in STATISTICS:
        row = f"{stat + (' *' if stat in NOT_REPRODUCED else ''):24s}"
        for g in names:
            paper = groups[g]["paper"]
            row += f"{_cell(stat, groups[g]['statistics'][stat], paper=False):>13s}"
            row += f"{_cell(stat, paper[stat] if paper else None, paper=True):>11s}"
        lines.append(row)
    return lines


def render_table3(result: dict[str, Any]) -> str:
    """The text form of :func:`file_statistics`: one table per file (and the total)."""
    lines: list[str] = []
    for f in result["files"]:
        lines += [*_table(f["path"], f["groups"]), ""]
    if "total" in result:
        lines += [*_table("all files together", {"all": result["total"]}), ""]
    lines.append("* refbench's reading of a statistic the paper does not define; it does not "
                 "reproduce the paper's figure (avg_transitive: no reading found, not computed).")
    return "\n".join(lines)

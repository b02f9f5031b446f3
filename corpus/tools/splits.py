"""Deterministic train/dev/test assignment for corpus groups.

Splits are assigned per *group* (a scenario or template name), never per record, so that
near-duplicates written from one idea can never straddle two splits. A group name is hashed with
SHA-256 and the first 8 bytes, taken modulo 100, pick the split: 0-59 train, 60-79 dev, 80-99 test.

Some carriers are reserved for the test split (so the test split contains document kinds that the
training split never saw). A group whose records include any of them goes wholly to test; that rule
needs all records of the group and is applied by ``assign_group_splits`` (used by ``build.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

TEST_ONLY_CARRIERS = frozenset({"calendar", "pdf_text"})
SPLITS = ("train", "dev", "test")


def split_for_group(group: str) -> str:
    """Return ``"train"``, ``"dev"`` or ``"test"`` for a group name (60/20/20 by SHA-256)."""
    digest = hashlib.sha256(group.encode("utf-8")).digest()
    bucket = int.from_bytes(digest[:8], "big") % 100
    if bucket < 60:
        return "train"
    if bucket < 80:
        return "dev"
    return "test"


def group_split(group: str, carriers: Iterable[str]) -> str:
    """Split of a group given the carriers of all its records (test-only carriers force test)."""
    if any(c in TEST_ONLY_CARRIERS for c in carriers):
        return "test"
    return split_for_group(group)


def assign_group_splits(records: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """Map every group of ``records`` (dicts with ``group`` and ``carrier``) to its split."""
    carriers: dict[str, list[str]] = {}
    for rec in records:
        carriers.setdefault(str(rec["group"]), []).append(str(rec["carrier"]))
    return {g: group_split(g, cs) for g, cs in carriers.items()}


def group_name_for_split(base: str, split: str) -> str:
    """Return ``base`` if it hashes to ``split``, else the first ``base~N`` (N = 1, 2, ...) that does.

    Used by the generator when a template's split is forced (test-only carrier) so that the record's
    group hashes to the same split as the one it is placed in, whatever rule is applied later.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    if split_for_group(base) == split:
        return base
    n = 1
    while True:
        cand = f"{base}~{n}"
        if split_for_group(cand) == split:
            return cand
        n += 1

"""Normalisation of external strings: what the model sees, with every change recorded.

:func:`normalize_text` runs up to four passes over one string, each a single regex scan:

0. ``html`` (only for fields the policy marks as HTML): reduced to text, hidden content surfaced
   (see :mod:`toolbound._html`);
1. ``normalize``, Unicode: invisible characters (zero-width, word joiner, BOM, soft hyphen,
   fillers, C0/C1 controls), bidirectional embeddings/overrides/isolates, Unicode tag characters
   (ASCII smuggling: removed, the hidden text decoded into the finding's ``detail``) and
   variation-selector abuse (runs that encode bytes: removed and decoded) are removed. Legitimate
   uses stay: a single variation selector after an emoji or keycap base, ZWJ/ZWNJ and
   direction marks between non-ASCII letters or emoji, tag sequences of subdivision flags;
2. ``normalize``, conversation structure: chat-template and role tokens (``<|im_start|>``,
   ``<|endoftext|>``, ``[INST]``, ``<<SYS>>``, ``<start_of_turn>``, ``</tool_result>``...) become
   ``[template token removed: im_start]``; a line opening a ``Human:``/``Assistant:``/``System:``
   turn becomes ``[role label: System] ...``; text shaped like a toolbound boundary marker is
   flagged (the renderer escapes it);
3. ``links``: markdown images, links, autolinks, reference definitions and inline ``<img>`` tags
   to domains outside the tool's ``allow_domains`` are defanged: ``[image removed: alt (host)]``,
   ``text [link removed: host]``. No URL (and so no data in a query string) survives.

Offsets: every finding's ``start``/``end`` refer to the final normalised text (what the model
sees, ``Span.text``). A removal is an empty range where the characters were; a replacement
covers the replacement text.

Cost: a clean ASCII string costs one ``isascii()`` and two regex scans that find nothing; HTML
parsing (bleach) happens only for HTML fields that contain ``<`` or ``&``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import regex

from toolbound._spanrender import ANGLE_DOUBLE, ANGLE_SINGLE, ANGLES
from toolbound._types import Finding

DETAIL_LIMIT = 500
BULK_AFTER = 10_000  # invisible runs judged one by one before the rest is removed in bulk
PER_RULE_LIMIT = 20


@dataclass
class _Hit:
    rule_id: str
    family: str
    severity: str
    start: int
    end: int
    reason: str
    stage: str
    detail: str | None = None

    def finding(self) -> Finding:
        return Finding(self.rule_id, self.family, self.severity,  # type: ignore[arg-type]
                       self.start, self.end, self.reason, "", _SCORE[self.severity], self.stage,
                       self.detail)


_SCORE = {"low": 0.3, "medium": 0.6, "high": 0.9}

# An edit: (in_start, in_end, out_start, out_end).
_Edit = tuple[int, int, int, int]


def _apply(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, list[_Edit]]:
    """Apply sorted, non-overlapping (start, end, replacement) edits; returns text and mapping."""
    out: list[str] = []
    mapping: list[_Edit] = []
    pos = 0
    n = 0
    for s, e, rep in edits:
        out.append(text[pos:s])
        n += s - pos
        mapping.append((s, e, n, n + len(rep)))
        out.append(rep)
        n += len(rep)
        pos = e
    out.append(text[pos:])
    return "".join(out), mapping


def _map(p: int, mapping: list[_Edit], end: bool) -> int:
    """Where input position ``p`` lands in the output (edits never insert at an empty range)."""
    delta = 0
    for s, e, os_, oe in mapping:
        if p <= s:
            break
        if p < e:  # strictly inside a replaced range: snap to its edge
            return oe if end else os_
        delta = oe - e
    return p + delta


def _remap(hits: list[_Hit], mapping: list[_Edit]) -> None:
    if not mapping:
        return
    for h in hits:
        h.start = _map(h.start, mapping, False)
        h.end = max(h.start, _map(h.end, mapping, True))


def _commit(text: str, edits: list[tuple[int, int, str]], new: Sequence[tuple[int, str, str, str, str, str | None]],
            hits: list[_Hit], stage: str) -> str:
    """Apply ``edits`` to ``text``, move earlier ``hits`` to the new offsets, and add one hit per
    ``new`` entry ``(edit index, rule, family, severity, reason, detail)`` at its edit's new span
    (at most :data:`PER_RULE_LIMIT` per rule). Returns the edited text."""
    out, mapping = _apply(text, edits)
    _remap(hits, mapping)
    counts: dict[str, int] = {}
    for idx, rule, family, sev, reason, detail in new:
        counts[rule] = counts.get(rule, 0) + 1
        if counts[rule] <= PER_RULE_LIMIT:
            _, _, s, e = mapping[idx]
            hits.append(_Hit(rule, family, sev, s, e, reason, stage, detail))
    return out


def _name(cp: int) -> str:
    return f"U+{cp:04X} {unicodedata.name(chr(cp), 'unnamed')}"


# --- pass 1: invisible, bidi, tags, variation selectors -------------------------------------

_INVISIBLE_RUN = regex.compile(r"[\p{DI}\x00-\x08\x0e-\x1f\x7f-\x9f]+")
_CONTROL = regex.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_JOINERS = frozenset({0x200C, 0x200D, 0x034F})
_MARKS = frozenset({0x200E, 0x200F, 0x061C})  # direction marks: legitimate next to RTL text
_RTL = regex.compile(r"[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]")
_FLAG = "\U0001F3F4"


def _legit_joiner(cp: int, prev: str, nxt: str) -> bool:
    """ZWJ/ZWNJ/CGJ between two non-ASCII letters or emoji (Indic, Persian, emoji sequences), or a
    direction mark next to non-ASCII text, is ordinary text; next to ASCII it only hides."""
    if cp in _JOINERS:
        return bool(prev and nxt) and not prev.isascii() and not nxt.isascii() \
            and not prev.isspace() and not nxt.isspace()
    if cp in _MARKS:
        return bool(prev and not prev.isascii()) or bool(nxt and not nxt.isascii())
    return False


def _is_vs(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _vs_byte(cp: int) -> int:
    return cp - 0xFE00 if cp <= 0xFE0F else cp - 0xE0100 + 16


def _printable(s: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?" for c in s)


def _clip(s: str) -> str:
    return s if len(s) <= DETAIL_LIMIT else s[:DETAIL_LIMIT - 3] + "..."


def _unicode_pass(text: str, hits: list[_Hit]) -> str:
    edits: list[tuple[int, int, str]] = []
    pending: list[tuple[int, str, str, str, str | None]] = []  # (edit index, rule, family, sev, detail)
    removed_inv: dict[int, int] = {}
    removed_bidi: dict[int, int] = {}
    inv_edits: list[int] = []
    bidi_edits: list[int] = []
    n = len(text)
    bulk_from = -1
    for k, m in enumerate(_INVISIBLE_RUN.finditer(text)):
        if k >= BULK_AFTER:  # pathological input: stop judging context, remove the rest in bulk
            bulk_from = m.start()
            break
        run = m.group()
        a, b = m.start(), m.end()
        prev = text[a - 1] if a else ""
        nxt = text[b] if b < n else ""
        cps = [ord(c) for c in run]
        # A subdivision flag: U+1F3F4 then tag letters/digits then CANCEL TAG.
        if prev == _FLAG and cps[-1] == 0xE007F and 1 <= len(cps) - 1 <= 8 and all(
                0xE0030 <= c <= 0xE0039 or 0xE0061 <= c <= 0xE007A for c in cps[:-1]):
            continue
        keep: list[str] = []
        tags: list[int] = []
        vss: list[int] = []
        inv = bidi = False
        n_vs = sum(1 for c in cps if _is_vs(c))
        for i, cp in enumerate(cps):
            if 0xE0000 <= cp <= 0xE007F:
                tags.append(cp)
            elif _is_vs(cp):
                base_ok = (i == 0 and prev and not prev.isspace() and n_vs == 1 and
                           (not prev.isascii() or (prev in "0123456789#*" and cp == 0xFE0F)))
                if base_ok:
                    keep.append(chr(cp))
                else:
                    vss.append(cp)
            elif 0x180B <= cp <= 0x180F and cp != 0x180E:
                if i == 0 and prev and 0x1800 <= ord(prev) <= 0x18AF:
                    keep.append(chr(cp))
                else:
                    removed_inv[cp] = removed_inv.get(cp, 0) + 1
                    inv = True
            elif cp in _BIDI:
                removed_bidi[cp] = removed_bidi.get(cp, 0) + 1
                bidi = True
            elif _legit_joiner(cp, prev, nxt):
                keep.append(chr(cp))
            else:
                removed_inv[cp] = removed_inv.get(cp, 0) + 1
                inv = True
        kept = "".join(keep)
        if kept == run:
            continue
        idx = len(edits)
        edits.append((a, b, kept))
        if inv:
            inv_edits.append(idx)
        if bidi:
            bidi_edits.append(idx)
        if tags:
            decoded = "".join(chr(c - 0xE0000) for c in tags if 0xE0020 <= c <= 0xE007E)
            if decoded.strip():
                pending.append((idx, "normalize.tag_characters", "ascii_smuggling", "high",
                                "hidden text: " + _clip(decoded)))
            else:
                pending.append((idx, "normalize.tag_characters", "ascii_smuggling", "low",
                                f"removed {len(tags)} tag character(s) without hidden text"))
        if vss:
            data = bytes(_vs_byte(c) for c in vss)
            decoded = data.decode("utf-8", "replace")
            shown = sum(1 for c in decoded if c.isprintable() and c != "\ufffd")
            sev = "high" if len(vss) >= 2 and shown >= 2 else "medium" if len(vss) >= 2 else "low"
            detail = (f"hidden text: {_clip(_printable(decoded))}" if shown >= 2 else
                      f"removed {len(vss)} variation selector(s)")
            pending.append((idx, "normalize.variation_selectors", "variation_selector_smuggling",
                            sev, detail))
    if bulk_from >= 0:
        rest = text[bulk_from:]
        removed = "".join(_INVISIBLE_RUN.findall(rest))
        idx = len(edits)
        edits.append((bulk_from, n, _INVISIBLE_RUN.sub("", rest)))
        before = sum(removed_inv.values())
        for c, k in Counter(removed).items():
            cp = ord(c)
            if 0xE0000 <= cp <= 0xE007F or _is_vs(cp):
                continue
            bucket = removed_bidi if cp in _BIDI else removed_inv
            bucket[cp] = bucket.get(cp, 0) + k
        decoded = "".join(chr(ord(c) - 0xE0000) for c in removed if 0xE0020 <= ord(c) <= 0xE007E)
        if decoded.strip():
            pending.append((idx, "normalize.tag_characters", "ascii_smuggling", "high",
                            "hidden text: " + _clip(decoded)))
        n_vs = sum(1 for c in removed if _is_vs(ord(c)))
        if n_vs >= 2:
            pending.append((idx, "normalize.variation_selectors", "variation_selector_smuggling",
                            "medium", f"removed {n_vs} variation selector(s)"))
        if removed_bidi:
            bidi_edits.append(idx)
        if sum(removed_inv.values()) > before:
            inv_edits.append(idx)
    if not edits:
        return text
    out, mapping = _apply(text, edits)
    _remap(hits, mapping)
    counts: dict[str, int] = {}
    for idx, rule, family, sev, info in pending:
        counts[rule] = counts.get(rule, 0) + 1
        if counts[rule] > PER_RULE_LIMIT:
            continue
        _, _, os_, oe = mapping[idx]
        reason = ("Unicode tag characters removed; they hide text from readers (decoded in detail)"
                  if rule == "normalize.tag_characters" else
                  "variation selectors removed; a run of them can hide data (decoded in detail)")
        hits.append(_Hit(rule, family, sev, os_, oe, reason, "normalize", info))
    if inv_edits:
        total = sum(removed_inv.values())
        detail = f"removed {total} character(s): " + ", ".join(
            f"{_name(cp)} x{k}" for cp, k in sorted(removed_inv.items(), key=lambda x: -x[1])[:8])
        hits.append(_Hit("normalize.invisible_characters", "invisible_text", "low",
                         mapping[inv_edits[0]][2], mapping[inv_edits[-1]][3],
                         "invisible characters removed", "normalize", detail))
    if bidi_edits:
        total = sum(removed_bidi.values())
        sev = "low" if _RTL.search(out) else "medium"
        detail = f"removed {total} character(s): " + ", ".join(
            f"{_name(cp)} x{k}" for cp, k in sorted(removed_bidi.items(), key=lambda x: -x[1]))
        hits.append(_Hit("normalize.bidi_controls", "bidi_control", sev,
                         mapping[bidi_edits[0]][2], mapping[bidi_edits[-1]][3],
                         "bidirectional control characters removed (they can reorder displayed text)",
                         "normalize", detail))
    return out


# --- pass 2: chat-template tokens, role lines, forged boundary markers ------------------------

_A = "[" + re.escape(ANGLE_SINGLE + ANGLE_DOUBLE) + "]"
_NO_ANGLES = ANGLES.isdisjoint
# Closing-direction angles only, so a marker's tail never swallows the next token's opening '<'.
_CLOSE = "[>\ufe65\uff1e\u203a\u3009\u232a\u27e9\u276f\u276d\u2771\u29fd\u02c3\u1433\u00bb\u226b\u27eb\u300b]"
_STRUCT = re.compile(
    r"(?P<tok>"
    r"<[|\uff5c][A-Za-z0-9_.\-\u2581]{1,40}[|\uff5c]>"
    r"|\[/?(?:INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT)\]"
    r"|<</?SYS>>"
    r"|</?(?:start_of_turn|end_of_turn|start_of_image|tool_result|tool_results|tool_response|tool_call"
    r"|function_results|function_calls|function_call|system|assistant|human|bos|eos)>"
    r")"
    r"|(?P<role>(?:^|(?<=[\n\r\x0b\x0c\x85\u2028\u2029]))(?P<lead>[ \t>*#_]{0,8})"
    r"(?P<who>Human|Assistant|System)[ \t]{0,4}:)",
    re.IGNORECASE,
)
# Text shaped like a toolbound boundary marker; flagged only (the renderer escapes it), so it is
# scanned on its own after the edits above and may overlap anything.
_MARK = re.compile(
    rf"{_A}(?:{_A}){{0,3}}[ \t]{{0,4}}(?:(?:end[ \t]{{1,4}})?[QＱ][0-9]{{1,6}}|end[ \t]{{1,4}}data\b"
    rf"|data[ \t]{{1,4}}untrusted\b)"
    rf"(?:[^\n<>]{{0,80}}?{_CLOSE}{{1,2}})?",
    re.IGNORECASE,
)


def _struct_pass(text: str, hits: list[_Hit]) -> str:
    if "<" not in text and "[" not in text and (text.isascii() or _NO_ANGLES(text)):
        low = text.lower()
        if "system" not in low and "human" not in low and "assistant" not in low:
            return text
    edits: list[tuple[int, int, str]] = []
    new: list[tuple[int, str, str, str, str, str]] = []
    for m in _STRUCT.finditer(text):
        if m.group("tok") is not None:
            tok = m.group("tok")
            name = regex.sub(r"[<>|\uff5c\[\]]", "", tok)
            new.append((len(edits), "normalize.template_token", "chat_template", "medium",
                        "chat-template token made inert", name))
            edits.append((m.start(), m.end(), f"[template token removed: {name}]"))
        else:
            who = m.group("who")
            new.append((len(edits), "normalize.role_label", "chat_template", "low",
                        "line opening a conversation turn made inert", who))
            edits.append((m.start("who"), m.end(), f"[role label: {who}]"))
    out = text
    if edits:
        out = _commit(text, edits, new, hits, "normalize")
    if "<" in out or not (out.isascii() or _NO_ANGLES(out)):
        for k, m in enumerate(_MARK.finditer(out)):
            if k >= PER_RULE_LIMIT:
                break
            hits.append(_Hit("normalize.boundary_marker", "boundary_forgery", "high", m.start(), m.end(),
                             "text shaped like a toolbound boundary marker (escaped when rendered)",
                             "normalize"))
    return out


# --- pass 3: links and images -----------------------------------------------------------------

_URL = (r"(?P<url><[^<>\n]{0,2048}>|[^\s()<>]{0,2048}+(?:\([^\s()<>]{0,256}\)[^\s()<>]{0,2048}+){0,8})"
        r"(?:\s{1,8}(?:\"[^\"\n]{0,512}\"|'[^'\n]{0,512}'|\([^()\n]{0,512}\)))?\s{0,8}\)")
_LABEL = r"\[(?P<label>(?:[^\[\]\\]|\\.|\[[^\[\]]{0,256}\]){0,512}+)\]"
_IMAGE = regex.compile(r"!" + _LABEL + r"\(\s{0,8}" + _URL
                       + r"|(?P<img><img\b[^>]{0,2048}>)", regex.IGNORECASE)
_LINK = regex.compile(
    r"(?<!!)" + _LABEL + r"\(\s{0,8}" + _URL
    + r"|<(?P<auto>(?:https?:)?//[^\s<>]{1,2048})>"
    + r"|(?m:^(?P<refhead>[ ]{0,3}\[[^\]\n]{1,256}\]:[ \t]{0,8})<?(?P<refurl>[^\s<>]{1,2048})>?)",
    regex.IGNORECASE)
_IMG_SRC = regex.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", regex.IGNORECASE)
_SAFE_LINK_SCHEMES = frozenset({"mailto", "tel"})


def _host(url: str) -> tuple[str, str | None, bool]:
    """(label for people, host or None, carries data): how a URL is named in a defanged link."""
    u = url.strip().strip("<>")
    try:
        parts = urlsplit(u)
        host = parts.hostname
    except ValueError:
        return "invalid URL", None, True
    data = bool(parts.query or parts.fragment or "{" in u or "%7b" in u.lower())
    if host:
        h = host.rstrip(".")[:100]
        return h, h, data
    if parts.scheme:
        return f"{parts.scheme.lower()[:20]} URL", None, data
    return "", None, data  # relative: no host to reach


def _relative(url: str) -> bool:
    u = url.strip().strip("<>")
    try:
        p = urlsplit(u)
    except ValueError:
        return False
    return not p.scheme and not p.netloc and not u.startswith("//")


def _links_pass(text: str, hits: list[_Hit], allow: tuple[str, ...]) -> str:
    if "](" not in text and "<" not in text and "]:" not in text:
        return text
    from toolbound._policy import domain_allowed

    def allowed(host: str | None) -> bool:
        return bool(host) and bool(allow) and domain_allowed(host, allow)  # type: ignore[arg-type]

    for pattern in (_IMAGE, _LINK):
        edits: list[tuple[int, int, str]] = []
        new: list[tuple[int, str, str, str, str, str]] = []
        for m in pattern.finditer(text):
            gd = m.groupdict()
            if gd.get("img") is not None:
                src = _IMG_SRC.search(gd["img"])
                url = next((g for g in src.groups() if g is not None), "") if src else ""
                label = ""
                image = True
            elif gd.get("auto") is not None:
                url, label, image = gd["auto"], "", False
            elif gd.get("refurl") is not None:
                url, label, image = gd["refurl"], "", False
            else:
                url, label, image = gd["url"] or "", " ".join((gd["label"] or "").split()), pattern is _IMAGE
            if not image and (_relative(url) or url.split(":", 1)[0].lower() in _SAFE_LINK_SCHEMES):
                continue
            if image and not url:
                continue
            name, host, data = _host(url)
            if image and _relative(url):
                name = "relative URL"
            if allowed(host):
                continue
            label = label if len(label) <= 200 else label[:197] + "..."
            if image:
                rep = f"[image removed: {label} ({name})]" if label else f"[image removed: {name}]"
                new.append((len(edits), "links.image", "external_image",
                            "medium" if data else "low",
                            "image outside the allow-list defanged; its URL is not shown", name))
            else:
                head = gd.get("refhead") or ""
                rep = (f"{head}[link removed: {name}]" if gd.get("refurl") is not None else
                       f"{label} [link removed: {name}]" if label else f"[link removed: {name}]")
                new.append((len(edits), "links.link", "external_link", "low",
                            "link outside the allow-list defanged; its URL is not shown", name))
            edits.append((m.start(), m.end(), rep))
        if edits:
            text = _commit(text, edits, new, hits, "links")
    return text


# --- entry point -------------------------------------------------------------------------------


def normalize_text(text: str, *, html: bool = False,
                   allow_domains: tuple[str, ...] | list[str] = ()) -> tuple[str, list[Finding]]:
    """Normalise one external string.

    Args:
        text: The string.
        html: Reduce it from HTML to text first (policy ``html``).
        allow_domains: Domains whose links and images stay as they are.

    Returns:
        ``(normalised text, findings)``; findings have ``path=""`` (the caller places them) and
        offsets into the normalised text. Unchanged clean text returns ``(text, [])``.
    """
    hits: list[_Hit] = []
    if html:
        from toolbound._html import html_to_text, looks_like_html

        if looks_like_html(text):
            text, items = html_to_text(text)
            for rule, family, sev, pos, reason, detail in items:
                hits.append(_Hit(rule, family, sev, pos, pos, reason, "html", detail or None))
    if not text.isascii() or (not text.isprintable() and _CONTROL.search(text)):
        text = _unicode_pass(text, hits)
    text = _struct_pass(text, hits)
    text = _links_pass(text, hits, tuple(allow_domains))
    if not hits:
        return text, []
    n = len(text)
    for h in hits:
        h.start = min(max(h.start, 0), n)
        h.end = min(max(h.end, h.start), n)
    hits.sort(key=lambda h: (h.start, h.end))
    return text, [h.finding() for h in hits]

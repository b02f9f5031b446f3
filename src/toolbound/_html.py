"""HTML fields reduced to text, with hidden content surfaced instead of silently kept or dropped.

This is the only module that imports bleach (lazily: only when a policy marks a field as HTML).
The HTML is parsed with bleach's HTML5 parser (the same parser bleach sanitises with, so no
parser differential between what we check and what we extract), then walked:

- visible text is kept; blocks, ``<br>`` and list items become line breaks, whitespace collapses
  as a browser would (``<pre>`` keeps it); entities are decoded;
- ``<a href="http(s)://...">text</a>`` becomes a markdown link ``[text](url)`` so the links pass
  can keep it (allowed domain) or defang it;
- content a reader does not see is removed from the text and surfaced as a finding with the text
  in ``detail``: HTML comments; elements hidden by ``hidden``, ``type=hidden``, classes such as
  ``sr-only``/``d-none``, or inline CSS (``display:none``, ``visibility:hidden``, zero or tiny
  font size, ``opacity:0``, off-screen positioning or indent, ``clip``/``clip-path`` to nothing,
  zero width/height with overflow hidden, ``transform:scale(0)``, text colour equal to its
  background or transparent); non-rendered elements (``script``, ``style``, ``template``,
  ``noscript``, ``iframe``...); and ``alt``/``title``/``aria-*``/``placeholder`` attribute text.

Offsets of these findings are positions in the extracted text (where the content was removed).
Stylesheet rules (``<style>.x{display:none}</style>``) are not evaluated: the style element itself
is surfaced, and text hidden only by a class rule stays visible.
"""

from __future__ import annotations

import re
from typing import Any

MAX_HTML_CHARS = 4 * 1024 * 1024
DETAIL_LIMIT = 300
PER_KIND_LIMIT = 20

_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
    "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "main", "menu",
    "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead",
    "tr", "ul"})
_CELLS = frozenset({"td", "th"})
_NON_RENDERED = frozenset({"script", "style", "template", "noscript", "iframe", "object", "embed",
                           "head", "meta", "link", "title", "noembed", "noframes", "frameset",
                           "param", "source", "track", "datalist"})
_ATTR_TEXT = ("alt", "title", "aria-label", "aria-description", "aria-roledescription",
              "aria-valuetext", "aria-placeholder", "placeholder")
_HIDDEN_CLASSES = frozenset({"hidden", "d-none", "sr-only", "visually-hidden", "visuallyhidden",
                             "screen-reader-text", "invisible", "is-hidden", "u-hidden", "hide"})

_SPACES = re.compile(r"[ \t\n\r\f]+")
_NUM = re.compile(r"^\s*(-?\d*\.?\d+)\s*([a-z%]*)")


def _num(value: str) -> tuple[float, str] | None:
    m = _NUM.match(value)
    if not m:
        return None
    try:
        return float(m.group(1)), m.group(2)
    except ValueError:  # pragma: no cover - the pattern only matches numbers
        return None


def _px(value: str) -> float | None:
    """A CSS length in (approximate) pixels, or None when unknown."""
    n = _num(value)
    if n is None:
        return None
    v, unit = n
    return v * {"": 1, "px": 1, "pt": 1.33, "em": 16, "rem": 16, "ex": 8, "ch": 8, "vw": 10,
                "vh": 10, "%": 0.16, "cm": 37.8, "mm": 3.78, "in": 96, "pc": 16}.get(unit, 1)


def _style(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for decl in text.split(";"):
        if ":" in decl:
            k, v = decl.split(":", 1)
            out[k.strip().lower()] = v.replace("!important", "").strip().lower()
    return out


def hidden_reason(attrs: dict[str, str]) -> str | None:
    """Why an element with these attributes is not visible to a reader, or None."""
    if "hidden" in attrs:
        return "hidden attribute"
    if attrs.get("type", "").strip().lower() == "hidden":
        return "type=hidden"
    classes = set(attrs.get("class", "").lower().split())
    if classes & _HIDDEN_CLASSES:
        return f"class {min(classes & _HIDDEN_CLASSES)}"
    st = attrs.get("style")
    if not st:
        return None
    s = _style(st)
    if s.get("display", "").startswith("none"):
        return "display:none"
    if s.get("visibility", "").split(" ")[0] in ("hidden", "collapse"):
        return "visibility:hidden"
    fs = s.get("font-size")
    if fs is not None:
        n = _num(fs)
        if n is not None and (n[0] <= 0 or (_px(fs) or 99) < 2):
            return "zero or tiny font size"
    op = _num(s.get("opacity", ""))
    if op is not None and (op[0] / (100 if op[1] == "%" else 1)) <= 0.05:
        return "opacity:0"
    for k in ("left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent"):
        if k in s:
            v = _px(s[k])
            if v is not None and v <= -500:
                return f"off-screen ({k})"
    for k in ("transform",):
        if re.search(r"scale[xy]?\(\s*0*\.?0+\s*[,)]", s.get(k, "")):
            return "transform:scale(0)"
    clip = s.get("clip", "")
    if clip.startswith("rect(") and all((_px(p) or 0) <= 1 for p in re.split(r"[\s,]+", clip[5:-1]) if p):
        return "clip to nothing"
    if re.match(r"(inset\(\s*(50|100)%|circle\(\s*0)", s.get("clip-path", "")):
        return "clip-path to nothing"
    if "hidden" in s.get("overflow", "") or "clip" in s.get("overflow", ""):
        for k in ("width", "height", "max-width", "max-height"):
            v = _px(s.get(k, "")) if k in s else None
            if v is not None and v <= 1:
                return f"{k}:0 with overflow hidden"
    color = s.get("color")
    if color is not None:
        if color in ("transparent",) or re.match(r"rgba\([^)]*,\s*0(\.0*)?\s*\)$", color):
            return "transparent text"
        bg = s.get("background-color") or s.get("background")
        if bg and bg.split()[0] == color:
            return "text colour equals background"
    return None


def _clip(text: str) -> str:
    t = " ".join(text.split())
    return t if len(t) <= DETAIL_LIMIT else t[:DETAIL_LIMIT - 3] + "..."


_PARSER: Any = None


def _parse(html: str) -> Any:
    global _PARSER
    if _PARSER is None:
        from bleach import html5lib_shim

        _PARSER = html5lib_shim.BleachHTMLParser(tags=None, strip=False, consume_entities=True,
                                                  namespaceHTMLElements=False)
    return _PARSER.parseFragment(html)


# One item: (rule_id, family, severity, position in the text, reason, detail)
Item = tuple[str, str, str, int, str, str]


class _Out:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.last = "\n"  # treat the start as a line start: no leading whitespace
        self.pre = 0
        self.items: list[Item] = []
        self.counts: dict[str, int] = {}

    def text(self, s: str | None) -> None:
        if not s:
            return
        if not self.pre:
            s = _SPACES.sub(" ", s)  # HTML collapses ASCII whitespace only (not &nbsp;)
            if self.last in " \n":
                s = s.lstrip(" ")
            if not s:
                return
        self.parts.append(s)
        self.n += len(s)
        self.last = s[-1]

    def raw(self, s: str) -> None:
        self.parts.append(s)
        self.n += len(s)
        self.last = s[-1]

    def newline(self) -> None:
        if self.n and self.last != "\n":
            if self.last == " ":
                self.parts[-1] = self.parts[-1][:-1]
                self.n -= 1
            self.raw("\n")

    def br(self) -> None:
        if self.n and self.last == " ":
            self.parts[-1] = self.parts[-1][:-1]
            self.n -= 1
        self.raw("\n")

    def space(self) -> None:
        if self.n and self.last not in " \n":
            self.raw(" ")

    def item(self, rule: str, family: str, severity: str, reason: str, detail: str) -> None:
        c = self.counts.get(rule, 0) + 1
        self.counts[rule] = c
        if c <= PER_KIND_LIMIT:
            self.items.append((rule, family, severity, self.n, reason, detail))


def _element_text(el: Any) -> str:
    return "".join(t for t in el.itertext() if isinstance(t, str))


def html_to_text(html: str) -> tuple[str, list[Item]]:
    """Reduce one HTML string to the text a reader sees, plus what was not shown.

    Returns:
        ``(text, items)``; each item is ``(rule_id, family, severity, offset, reason, detail)``
        with ``offset`` a position in ``text``.
    """
    if len(html) > MAX_HTML_CHARS:
        return html, [("html.too_large", "html", "low", 0,
                       f"HTML field over {MAX_HTML_CHARS:,} characters was not reduced to text", "")]
    out = _Out()
    root = _parse(html)
    # Iterative walk: (element, phase). Phase 0 = enter, 1 = leave (emit closing parts + tail).
    stack: list[tuple[Any, int, str]] = [(child, 0, "") for child in reversed(list(root))]
    out.text(root.text)
    while stack:
        el, phase, close = stack.pop()
        tag = el.tag
        if phase == 1:
            if close:
                out.raw(close)
            if tag == "pre":
                out.pre -= 1
            if isinstance(tag, str) and tag.lower() in _BLOCK:
                out.newline()
            elif isinstance(tag, str) and tag.lower() in _CELLS:
                out.space()
            out.text(el.tail)
            continue
        if not isinstance(tag, str):  # comment or processing instruction
            body = el.text or ""
            if body.strip():
                out.item("html.comment", "hidden_html", "low",
                         "HTML comment removed (its text is in detail)", _clip(body))
            out.text(el.tail)
            continue
        name = tag.lower().split("}")[-1]
        attrs = {str(k).lower(): str(v) for k, v in el.attrib.items()}
        for a in _ATTR_TEXT:
            v = attrs.get(a, "").strip()
            if v:
                out.item("html.attribute_text", "hidden_html", "low",
                         f"HTML {a} text not shown (it is in detail)", f"{a}: {_clip(v)}")
        if name in _NON_RENDERED:
            body = _element_text(el)
            if body.strip():
                out.item("html.non_rendered", "hidden_html", "low",
                         f"non-rendered <{name}> element removed (its text is in detail)", _clip(body))
            out.text(el.tail)
            continue
        why = hidden_reason(attrs)
        if why is not None:
            body = _element_text(el)
            if name == "input":
                body = attrs.get("value", "")
            if body.strip():
                out.item("html.hidden", "hidden_html", "low",
                         f"hidden HTML content removed ({why}; its text is in detail)", _clip(body))
            out.text(el.tail)
            continue
        if name in _BLOCK:
            out.newline()
        if name == "br":
            out.br()
        if name == "li":
            out.raw("- ")
        if name == "pre":
            out.pre += 1
        close = ""
        if name == "a":
            href = attrs.get("href", "").strip()
            if re.match(r"(?i)(https?:)?//", href):
                out.raw("[")
                close = "](" + re.sub(r"\s", "", href) + ")"
        stack.append((el, 1, close))
        out.text(el.text)
        for child in reversed(list(el)):
            stack.append((child, 0, ""))
    text = "".join(out.parts)
    stripped = text.rstrip()
    items = out.items
    for rule, c in out.counts.items():
        if c > PER_KIND_LIMIT:
            items.append((rule, "hidden_html", "low", len(stripped),
                          f"{c - PER_KIND_LIMIT} more of the same not listed", ""))
    items = [(r, f, s, min(pos, len(stripped)), why, d) for r, f, s, pos, why, d in items]
    return stripped, items


def looks_like_html(text: str) -> bool:
    """Cheap pre-check: only strings with a tag, comment or entity go through the parser."""
    return "<" in text or "&" in text

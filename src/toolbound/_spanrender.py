"""How a quarantined span is shown to the model.

``delimit`` (the default): the content sits between an opening and a closing marker that carry a
per-call random nonce. Content cannot forge or close its boundary: any marker-like sequence
(``<<``/``>>`` runs, and their Unicode lookalikes) inside the content is neutralised first.
"""

from __future__ import annotations

import regex

from toolbound._context import Span

# Opening/closing marker lookalikes that content must never carry verbatim.
_MARKERISH = regex.compile(r"[<\u2039\u00ab\uff1c\u3008\u300a\u276e\u2329\u27e8]{2,}|"
                           r"[>\u203a\u00bb\uff1e\u3009\u300b\u276f\u232a\u27e9]{2,}")


def neutralise_markers(text: str) -> str:
    """Break every run of two or more angle-quote characters so no boundary can be forged."""
    return _MARKERISH.sub(lambda m: " ".join(m.group()), text)


def placeholder(span: Span) -> str:
    return f"<<{span.id}>>"


def render_span(span: Span, mode: str, nonce: str) -> str:
    body = neutralise_markers(span.text)
    return f"<<{span.id} {span.path or '/'} untrusted {nonce}>>\n{body}\n<<end {span.id} {nonce}>>"

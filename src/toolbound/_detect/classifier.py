"""Optional adapter for a locally available transformer classifier (ONNX), never required.

A fine-tuned transformer that labels text as prompt injection (exported to ONNX, with its
``tokenizer.json``) can join toolbound's own score::

    import toolbound
    toolbound.use_classifier("models/pi-deberta-onnx")   # a directory: model.onnx + tokenizer.json
    toolbound.detect(text).score                           # max(toolbound's score, the classifier's)

or ``toolbound scan --classifier DIR`` / ``toolbound bench --classifier DIR --out DIR``. Nothing is
downloaded: the files are read from disk, and ``onnxruntime`` and ``tokenizers`` (the ``classifier``
extra: ``pip install 'toolbound[classifier]'``) are imported only when a classifier is loaded.

Such models read a fixed number of tokens (often 512). The adapter reads the whole text: it cuts it
into overlapping windows of the model's length (``stride`` tokens of overlap, special tokens added
by the tokenizer's own post-processor in every window), runs them in batches, and returns the
highest probability of the injection label over the windows, so a payload at the end of a long
page counts as much as one at the start. The cost grows linearly with the text.

How the probability joins the score is decided in ``score.py`` (the larger of the two); the
threshold stays toolbound's (0.5). A classifier has its own calibration: measure the combination
with ``toolbound bench --classifier DIR`` (threshold sweep included) before relying on it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ClassifierError", "OnnxClassifier", "load_classifier"]

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
DEFAULT_MAX_LENGTH = 512
CACHE_SIZE = 4096  # texts whose probability is kept (a big result has thousands of strings)
# Label names that mean "this text is an injection" in the configs of published classifiers.
_INJECTION_LABEL = re.compile(r"inject|jailbreak|unsafe|malicious|attack|harmful", re.I)
_SAFE_LABEL = re.compile(r"safe|benign|legit|clean|normal", re.I)


class ClassifierError(ValueError):
    """A classifier directory or option that cannot be used (the message says what to fix)."""


class OnnxClassifier:
    """A local ONNX sequence classifier, called as ``clf(text) -> probability of injection``.

    Args:
        path: A directory holding ``model.onnx`` and ``tokenizer.json`` (and optionally the
            ``config.json`` of the exported model, for its labels and length), or the ``.onnx`` file
            itself with ``tokenizer.json`` beside it.
        label: The output index (int) or label name (str) meaning "injection". Default: the label
            of ``config.json``'s ``id2label`` whose name says injection/jailbreak/unsafe/malicious,
            else index 1 of a two-label model.
        max_length: Tokens per window, special tokens included (default: the config's
            ``max_position_embeddings`` when it is at most 512, else 512).
        stride: Tokens shared by consecutive windows (default an eighth of ``max_length``: 64 for
            512; less than half of it).
        batch_size: Windows per model call (default 16).
        threads: onnxruntime intra-op threads (default 1: one core, like the rest of toolbound).

    The model's first output must be logits, shape ``(batch, labels)``: softmax over the labels, or
    with a single column a sigmoid (its probability is "injection").
    """

    def __init__(self, path: str | Path, *, label: int | str | None = None, max_length: int | None = None,
                 stride: int | None = None, batch_size: int = 16, threads: int = 1) -> None:
        model_path, tok_path, cfg_path = _files(Path(path))
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ClassifierError(
                f"the classifier adapter needs onnxruntime and tokenizers ({exc.name} is missing): "
                "pip install 'toolbound[classifier]'") from exc
        self._np = np
        config: dict[str, Any] = {}
        if cfg_path is not None:
            try:
                config = json.loads(cfg_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ClassifierError(f"{cfg_path}: not a readable JSON config ({exc})") from exc
            if not isinstance(config, dict):
                raise ClassifierError(f"{cfg_path}: expected a JSON object")
        if max_length is None:
            mpe = config.get("max_position_embeddings")
            max_length = min(int(mpe), DEFAULT_MAX_LENGTH) if isinstance(mpe, int) and mpe > 8 else DEFAULT_MAX_LENGTH
        if not isinstance(max_length, int) or max_length < 8:
            raise ClassifierError(f"max_length must be an integer of at least 8, got {max_length!r}")
        if stride is None:
            stride = max_length // 8
        if not isinstance(stride, int) or not 0 <= stride < max_length // 2:
            raise ClassifierError(f"stride must be an integer from 0 to less than half of max_length "
                                  f"({max_length}), got {stride!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ClassifierError(f"batch_size must be a positive integer, got {batch_size!r}")
        try:
            self._tok = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # tokenizers raises a plain Exception for a bad file
            raise ClassifierError(f"{tok_path}: not a tokenizers JSON file ({exc})") from exc
        self._tok.no_padding()
        self._tok.enable_truncation(max_length, stride=stride)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(model_path), sess_options=opts,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ClassifierError(f"{model_path}: onnxruntime cannot load it ({exc})") from exc
        self._inputs = [i.name for i in self._session.get_inputs()]
        if "input_ids" not in self._inputs:
            raise ClassifierError(f"{model_path}: the model has no 'input_ids' input (inputs: "
                                  f"{', '.join(self._inputs)}); export a sequence-classification model")
        unknown = set(self._inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise ClassifierError(f"{model_path}: unsupported model inputs {sorted(unknown)}; expected "
                                  "input_ids, attention_mask and optionally token_type_ids")
        self._label_names = _label_names(config)
        self.label = _pick_label(label, self._label_names, model_path)
        self.max_length = max_length
        self.stride = stride
        self.batch_size = batch_size
        self.path = model_path
        self.sha256 = hashlib.sha256(model_path.read_bytes()).hexdigest()
        self.name = f"onnx:{model_path.parent.name or model_path.name}"
        self._pad = _pad_id(self._tok)
        self._cache: OrderedDict[str, float] = OrderedDict()
        # A first run checks the output shape, so a wrong model fails here and not mid-scan.
        probe = self._run([self._tok.encode("probe")])
        self.single_logit = probe.shape[1] == 1  # one logit: sigmoid, its probability is "injection"
        if self.single_logit and label is None:
            self.label = 0
        if self.label >= probe.shape[1]:
            raise ClassifierError(f"{model_path}: label index {self.label} but the model has "
                                  f"{probe.shape[1]} output{'s' if probe.shape[1] != 1 else ''}")

    def __repr__(self) -> str:
        return (f"OnnxClassifier({str(self.path)!r}, label={self.label}, max_length={self.max_length}, "
                f"stride={self.stride})")

    def windows(self, text: str) -> list[Any]:
        """The token windows the model reads for ``text`` (``tokenizers`` encodings), in order."""
        enc = self._tok.encode(text)
        return [enc, *enc.overflowing]

    def __call__(self, text: str) -> float:
        """Probability that ``text`` is an injection: the highest over its windows (0.0 when empty)."""
        return self.score_many([text])[0]

    def score_many(self, texts: Sequence[str]) -> list[float]:
        """:meth:`__call__` for several texts, their windows batched together (the strings of one
        tool result are many and mostly short: one model run for all of them, not one each)."""
        out: list[float | None] = []
        todo: dict[str, list[Any]] = {}
        for text in texts:
            if not text.strip():
                out.append(0.0)
                continue
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
            elif text not in todo:
                todo[text] = self.windows(text)
            out.append(hit)
        if todo:
            owners: list[str] = []
            wins: list[Any] = []
            for text, ws in todo.items():
                owners.extend([text] * len(ws))
                wins.extend(ws)
            best = dict.fromkeys(todo, 0.0)
            # similar lengths together, so a batch pads little
            order = sorted(range(len(wins)), key=lambda k: len(wins[k].ids))
            for i in range(0, len(order), self.batch_size):
                chunk = order[i:i + self.batch_size]
                logits = self._run([wins[k] for k in chunk]).tolist()
                for k, row in zip(chunk, logits):
                    p = _sigmoid(row[0]) if self.single_logit else _softmax_at(row, self.label)
                    if p > best[owners[k]]:
                        best[owners[k]] = p
            for text, p in best.items():
                self._cache[text] = p
                if len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
            out = [best[t] if v is None else v for t, v in zip(texts, out)]
        return [float(v) for v in out]  # type: ignore[arg-type]

    def _run(self, encs: Sequence[Any]) -> Any:
        np = self._np
        width = max(len(e.ids) for e in encs)
        ids = np.full((len(encs), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        types = np.zeros((len(encs), width), dtype=np.int64)
        for r, e in enumerate(encs):
            n = len(e.ids)
            ids[r, :n] = e.ids
            mask[r, :n] = e.attention_mask
            types[r, :n] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        out = self._session.run(None, {k: feed[k] for k in self._inputs})[0]
        if out.ndim != 2 or out.shape[0] != len(encs) or out.shape[1] < 1:
            raise ClassifierError(f"{self.path}: expected logits of shape (batch, labels) as the first "
                                  f"output, got {tuple(out.shape)}")
        return out


def load_classifier(spec: str | Path | OnnxClassifier | None) -> OnnxClassifier | None:
    """An :class:`OnnxClassifier` from a path (or the classifier itself, or None)."""
    if spec is None or isinstance(spec, OnnxClassifier):
        return spec
    if isinstance(spec, (str, Path)):
        return OnnxClassifier(spec)
    if callable(spec):
        return spec  # type: ignore[return-value]  # any text -> probability callable
    raise ClassifierError(f"a classifier is a path, an OnnxClassifier or a callable, not {type(spec).__name__}")


def _files(path: Path) -> tuple[Path, Path, Path | None]:
    if path.is_dir():
        model, tok, cfg = path / MODEL_FILE, path / TOKENIZER_FILE, path / CONFIG_FILE
    elif path.suffix == ".onnx":
        model, tok, cfg = path, path.parent / TOKENIZER_FILE, path.parent / CONFIG_FILE
    else:
        raise ClassifierError(f"{path}: no such directory or .onnx file; give a directory holding "
                              f"{MODEL_FILE} and {TOKENIZER_FILE}")
    missing = [p.name for p in (model, tok) if not p.is_file()]
    if missing:
        raise ClassifierError(f"{path}: missing {' and '.join(missing)} (a classifier directory holds "
                              f"{MODEL_FILE}, {TOKENIZER_FILE} and optionally {CONFIG_FILE})")
    return model, tok, cfg if cfg.is_file() else None


def _label_names(config: dict[str, Any]) -> dict[int, str]:
    raw = config.get("id2label")
    if not isinstance(raw, dict):
        return {}
    out = {}
    for k, v in raw.items():
        try:
            out[int(k)] = str(v)
        except (TypeError, ValueError):
            continue
    return out


def _pick_label(label: int | str | None, names: dict[int, str], where: Path) -> int:
    if isinstance(label, bool):
        raise ClassifierError(f"label must be an index or a label name, not {label!r}")
    if isinstance(label, int):
        if label < 0:
            raise ClassifierError(f"label index must be >= 0, got {label}")
        return label
    if isinstance(label, str):
        for i, n in names.items():
            if n.lower() == label.lower():
                return i
        raise ClassifierError(f"{where}: no label named {label!r} (labels: {names or 'none in config.json'})")
    hits = [i for i, n in sorted(names.items()) if _INJECTION_LABEL.search(n) and not _SAFE_LABEL.fullmatch(n)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise ClassifierError(f"{where}: several labels look like injection ({[names[i] for i in hits]}); "
                              "pass label=")
    return 1


def _pad_id(tok: Any) -> int:
    for t in ("[PAD]", "<pad>", "<|pad|>"):
        i = tok.token_to_id(t)
        if i is not None:
            return int(i)
    return 0


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _softmax_at(row: Sequence[float], k: int) -> float:
    m = max(row)
    exps = [math.exp(x - m) for x in row]
    return exps[k] / sum(exps)

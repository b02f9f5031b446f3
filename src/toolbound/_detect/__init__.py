"""The detection engine: rule packs (``detectors/*.toml``), folding, the scanner and scoring.

Importing this package is cheap; packs are loaded and compiled on the first :func:`detect` or
:func:`scan_strings` call.
"""

from toolbound._detect.api import default_threshold, detect, scan_strings

__all__ = ["default_threshold", "detect", "scan_strings"]

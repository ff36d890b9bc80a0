"""Terminal output checked against golden text files (``tests/output/golden/<case>.txt``).

``golden_text(case, text)``: a missing or different golden fails. ``pytest --update-golden``
writes it and the test still FAILS, that run and every run until the file is committed (git
shows it untracked or modified): a golden is right once someone has read it, never because
the code printed it (the same rule as tests/facts/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import golden

GOLDEN = Path(__file__).parent / "golden"
golden_text = golden.text_fixture(GOLDEN)

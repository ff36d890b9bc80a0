"""Golden terminal output: ``golden_text(name, text)`` compares with ``golden/<name>.txt``.

As in ``tests/facts/conftest.py``: a missing or different golden fails; ``pytest --update-golden``
writes it and the test still FAILS until the file is committed (a golden is right once someone
has read it, never because the code printed it).
"""

from __future__ import annotations

from pathlib import Path

import golden

GOLDEN = Path(__file__).parent / "golden"
golden_text = golden.text_fixture(GOLDEN)

"""Event text into the text of each output: the terminal, Markdown, HTML, DOT, Mermaid, XML.

Anyone who can name a table, a user or a tag on a platform we read writes the text these
functions receive, so each output gets its own escaping and no output interprets event text:
control characters (C0, DEL, C1, and the invisible bidirectional and zero-width formatting
characters that reorder or hide what is shown) become visible escapes (``\\x1b``, ``\\u202e``)
everywhere a person reads the text; each format's own syntax is escaped on top. ``--json`` and
the export keep the text exactly as the event had it. docs/operating-safely.md lists where each
function is used.
"""

from __future__ import annotations

import html
import re

from markupsafe import Markup

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
"""Characters that move the cursor, ring, retitle or clear a terminal, or silently reorder or
hide text (Unicode bidi embeddings, overrides and isolates, zero-width space and no-break,
line and paragraph separators). The joiners (U+200C/D), which emoji and several scripts need,
and the plain direction marks of right-to-left names are left alone."""

CELL_LIMIT = 200
"""A table cell of event text is shortened in the middle beyond this many characters."""


def _code(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def visible(text: str) -> str:
    """``text`` with every control or invisible formatting character written as its escape."""
    return CONTROL.sub(_code, text)


def clip(text: str, limit: int = CELL_LIMIT) -> str:
    """``text`` shortened in the middle to about ``limit`` characters, saying how much went
    (ids differ at their ends, so both are kept)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 24, 2)
    head, tail = keep - keep // 2, keep // 2
    return f"{text[:head]}…[{len(text) - head - tail:,} chars]…{text[len(text) - tail:]}"


def terminal(text: str, limit: int | None = None) -> str:
    """Event text for a terminal: control characters visible, shortened past ``limit``. Rich
    markup needs no escaping because every console is made with markup off
    (:func:`lineage.render.terminal.console`)."""
    shown = visible(str(text))
    return clip(shown, limit) if limit else shown


def html_text(text: str) -> Markup:
    """Event text for HTML text or a quoted attribute (SVG included): visible, then escaped."""
    return Markup(html.escape(visible(str(text)), quote=True))


MARKDOWN_PLAIN = re.compile(r"[A-Za-z0-9 +\-.,;/:()]*")
"""Text that is the same in Markdown as written, when not a URL (``://``, ``www.``): letters,
digits, spaces and the punctuation of dates, times, counts, sentences and dotted names."""


def markdown(text: str) -> str:
    """Event text for Markdown: as it is when it holds nothing Markdown could read (a date,
    ``acme.orders``), else as a code span, inside which nothing is emphasis, a link, an image or
    HTML, and no GitHub bare-URL or e-mail link is made either (backslash escapes cannot stop
    those: the tests render with GitHub's own cmark-gfm). The fence is one backtick longer than
    the longest run inside; the padding spaces are stripped by the renderer."""
    shown = visible(str(text))
    if not shown.strip() or MARKDOWN_PLAIN.fullmatch(shown) and "://" not in shown and "www." not in shown.lower():
        return shown
    fence = "`" * (max((len(run) for run in re.findall("`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def dot(*lines: str) -> str:
    """A Graphviz double-quoted string of ``lines``: each made visible, quotes and backslashes
    escaped (``\\l``, ``\\N`` and friends are DOT's escapes), joined by DOT's ``\\n``."""
    return '"' + "\\n".join(visible(str(line)).replace("\\", "\\\\").replace('"', '\\"') for line in lines) + '"'


MERMAID_ENTITIES = str.maketrans({"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;",
                                  "[": "#91;", "]": "#93;", "|": "#124;", "`": "#96;", "\\": "#92;"})
"""Mermaid's own entity codes (``#quot;``), one pass, so an escape is never escaped again."""


def mermaid(*lines: str) -> str:
    """Text for a Mermaid ``["..."]`` label: each line visible, markup characters as entity
    codes, lines joined by ``<br/>``."""
    return "<br/>".join(visible(str(line)).translate(MERMAID_ENTITIES) for line in lines)


def xml(text: str) -> str:
    """XML character data or a double-quoted attribute value: XML 1.0 has no way to carry most
    control characters at all, so they are made visible first."""
    return html.escape(visible(str(text)), quote=True)

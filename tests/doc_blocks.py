# SPDX-License-Identifier: GPL-2.0
"""The docs' examples as the tests run them: an indented reStructuredText
literal block found by its first line."""

import sys
import textwrap


def literal_block(text, first_line, where):
    """The indented literal block of @text whose first line is @first_line;
    exits naming @where (the document) when there is none."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == first_line and line.startswith("    "):
            block = []
            for l in lines[i:]:
                if l and not l.startswith("    "):
                    break
                block.append(l)
            return textwrap.dedent("\n".join(block)).strip() + "\n"
    sys.exit(f"{where}: no literal block starting with {first_line!r}")

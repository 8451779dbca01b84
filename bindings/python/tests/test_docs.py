"""The Python examples of docs/embedding.md: each ```python block whose first
line is `# example: NAME` runs (from the source tree, in a python3 of its
own) and prints exactly the ```output block that follows it."""

import re
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

DOC = SOURCE_DIR / "docs" / "embedding.md"


def examples():
    text = DOC.read_text()
    # Fenced blocks, fences in column 0: (info string, body).
    blocks = re.findall(r"^```([^\n]*)\n(.*?)^```\s*$", text, re.M | re.S)
    found = []
    for i, (info, body) in enumerate(blocks):
        match = re.match(r"# example: ([A-Za-z0-9_]+)\n", body)
        if info.strip() != "python" or not match:
            continue
        following = blocks[i + 1] if i + 1 < len(blocks) else ("", "")
        assert following[0].strip() == "output", f"example {match.group(1)}: no ```output block after it"
        found.append((match.group(1), body, following[1]))
    return found


EXAMPLES = examples()


def test_the_python_section_has_examples():
    names = [name for name, _, _ in EXAMPLES]
    assert len(names) >= 4
    assert len(set(names)) == len(names), "two examples with one name"


@pytest.mark.parametrize("name,code,expected", EXAMPLES, ids=[name for name, _, _ in EXAMPLES])
def test_example(name, code, expected):
    run = subprocess.run([sys.executable, "-c", code], cwd=SOURCE_DIR, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected

"""The README and docs as a newcomer reads them in a clone (issue 11): every link
stays inside the repository and points at a file that exists, the rules document
names every rule id the code cites, and every ``nardy`` command the docs show exists."""

import glob
import os
import re
import subprocess
import sys

from vboard import ROOT

DOCS = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_links_stay_in_the_repository():
    bad = []
    for doc in DOCS:
        text = read(doc)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
            if not path.startswith(ROOT + os.sep) or not os.path.exists(path):
                bad.append((os.path.relpath(doc, ROOT), target))
        assert "../shared" not in text, doc
    assert not bad, bad


def test_rules_document_has_every_rule_id():
    text = read(os.path.join(ROOT, "docs", "RULES.md"))
    ids = ["C%d" % i for i in range(1, 8)] + ["L%d" % i for i in range(1, 9)] + \
        ["S%d" % i for i in range(1, 7)]
    missing = [i for i in ids if "**%s " % i not in text]
    assert not missing, missing
    # the ids the firmware cites in warnings are all explained there
    cited = set()
    for f in glob.glob(os.path.join(ROOT, "firmware", "nardy", "*.py")):
        cited.update(re.findall(r"""["']([CLS][1-8])["']""", read(f)))
    assert cited and cited <= set(ids), cited - set(ids)


def test_every_command_in_the_docs_exists():
    exe = os.path.join(os.path.dirname(sys.executable), "nardy")
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True).stdout
    known = set(re.findall(r"^    (\w+)\s", out, re.M))
    named = set()
    for doc in DOCS:
        text = read(doc)
        # in code: `nardy X ...` inline, or an indented command line
        named.update(re.findall(r"`nardy (\w+)", text))
        named.update(re.findall(r"^ {4,}(?:\$ )?nardy (\w+)", text, re.M))
    assert named and named <= known, named - known

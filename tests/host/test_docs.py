"""README and docs/: the guide stays short, its file:function names exist,
its links land in the repository, and no page points outside it. (The
generated tables are checked by make docs-check.)"""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def read(path):
    with open(path) as f:
        return f.read()


def test_readme_is_a_short_guide():
    assert len(read(os.path.join(ROOT, "README.md")).splitlines()) <= 200


def test_follow_a_frame_names_functions_that_exist():
    text = read(os.path.join(ROOT, "README.md")).split("## Follow a frame", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`([\w/]+\.[ch]):(\w+)`", text)
    assert len(named) >= 6
    for path, fn in named:
        assert re.search(r"\b%s\(" % fn, read(os.path.join(ROOT, path))), "%s:%s" % (path, fn)


def test_links_land_in_the_repository():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", read(page)):
            if "://" not in target:
                assert os.path.exists(os.path.join(os.path.dirname(page), target)), "%s -> %s" % (page, target)


def test_no_page_points_outside_the_repository():
    for page in PAGES:
        assert not re.search(r"\.\./shared|/work/", read(page)), page

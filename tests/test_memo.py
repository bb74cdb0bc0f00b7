"""core/memo.py: memos found again by the very object, never by an equal one."""
import gc
import weakref

from core.memo import IdentityMemo, Same
from core.model import Page


def test_a_memo_finds_the_same_page_object_and_not_an_equal_one():
    memo, made = IdentityMemo(8), []
    page = Page(1, 595, 842)
    assert memo.get(page, "k", lambda: made.append(1) or "first") == "first"
    assert memo.get(page, "k", lambda: made.append(1) or "again") == "first"
    assert memo.get(Page(1, 595, 842), "k", lambda: made.append(1) or "other") == "other"  # equal, not the same
    assert memo.get(page, "other key", lambda: made.append(1) or "third") == "third"
    assert len(made) == 3 and memo.misses == 3


def test_an_entry_keeps_its_object_alive_so_its_id_is_not_reused():
    memo = IdentityMemo(8)
    page = Page(2, 595, 842)
    alive = weakref.ref(page)
    memo.get(page, None, lambda: 1)
    del page
    gc.collect()
    assert alive() is not None
    memo.clear()
    gc.collect()
    assert alive() is None


def test_the_oldest_entries_go_when_the_memo_is_full():
    memo = IdentityMemo(2)
    pages = [Page(n, 10, 10) for n in (1, 2, 3)]
    for n, page in enumerate(pages):
        memo.get(page, None, lambda n=n: n)
    assert memo.peek(pages[0], None) is None and memo.peek(pages[2], None) == 2


def test_same_is_equal_only_to_the_very_same_object():
    a, b = [1, 2], [1, 2]  # equal values, two objects
    assert Same(a) == Same(a) and hash(Same(a)) == hash(Same(a))
    assert Same(a) != Same(b)

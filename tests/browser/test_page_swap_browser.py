"""In Chromium: a page turn shows the new page's image and its boxes together, never the new boxes
over the old image (issue 18, item 4's page turn as the reviewer sees it).

The page image is held back 1.5 s on its way from the server (as a busy server or a slow network
would), and what the page canvas shows is sampled every animation frame from before the turn until
the new page has settled. Every frame must be the old page as it was or the new page as it ends up:
anything else is a mix (boxes drawn before their image arrived, or over no image at all).
"""
from __future__ import annotations

import re
import time

import pytest

from tests.browser.steps import KEIHI, PAGE_LAYERS, first_visit, new_page, sample, settle, stable_canvas

pytestmark = pytest.mark.browser

IMAGE_DELAY_S = 1.5
# Every animation frame: the page canvas's layers (the background canvas under the drawing canvas,
# as the reviewer sees them) composited at a quarter of their size; a frame is kept when it differs
# from the one before. When `window.__rliStop` is set, each kept frame is compared with the first
# (the old page) and the last (the new page): the share of pixels off by more than 16 in a channel.
WATCH_FRAMES = """() => {
  const layers = LAYERS;
  const small = document.createElement('canvas');
  const ctx = small.getContext('2d', {willReadFrequently: true});
  const frames = [];
  let last = null;
  const grab = () => {
    const [w, h] = [350, 500];
    small.width = w; small.height = h;
    ctx.fillStyle = '#808080'; ctx.fillRect(0, 0, w, h);  // grey where nothing is drawn
    for (const c of layers()) if (c.width) ctx.drawImage(c, 0, 0, w, h);
    const d = ctx.getImageData(0, 0, w, h).data;
    let hash = 0;
    for (let i = 0; i < d.length; i += 4) hash = (hash * 31 + d[i] + 3 * d[i + 1] + 7 * d[i + 2]) % 2147483647;
    if (hash !== last) { frames.push({t: performance.now(), data: new Uint8ClampedArray(d)}); last = hash; }
  };
  const off = (a, b) => { let n = 0;
    for (let i = 0; i < a.length; i += 4)
      if (Math.abs(a[i] - b[i]) > 16 || Math.abs(a[i + 1] - b[i + 1]) > 16 || Math.abs(a[i + 2] - b[i + 2]) > 16) n++;
    return n / (a.length / 4); };
  window.__rliStop = false;
  window.__rliFrames = new Promise(done => {
    const tick = () => {
      grab();
      if (!window.__rliStop) { requestAnimationFrame(tick); return; }
      const first = frames[0].data, end = frames[frames.length - 1].data, t0 = frames[0].t;
      done(frames.map(f => [Math.round(f.t - t0), off(f.data, first), off(f.data, end)]));
    };
    tick();
  });
}""".replace("LAYERS", PAGE_LAYERS)
SAME = 0.005  # under half a percent of pixels off: the same picture
# The new page's image with its boxes, before its labels are drawn: the labels' text is about 4 % of
# the pixels. Images and boxes far apart (boxes over the old image or over nothing) are 30 %+.
LABELS_ONLY = 0.06


def frames_of_a_turn(app_server, chromium, during=None) -> list:
    """The distinct frames of a turn from page 1 to page 2 of the sample, its page images held back
    IMAGE_DELAY_S; `during(page)` runs right after the press on Next, while the image is held."""
    context, page = new_page(chromium, 1400, 900)
    held: list = []
    released = []

    def hold_back(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, KEIHI)
        assert doc.page_count >= 2 and doc.page(2).elements, "the sample needs a second page with elements"
        page.goto(f"{app_server.url}/?doc={doc_id}&page=1")
        stable_canvas(page)
        settle(page, 1500)
        page.route(re.compile(r"/media/[^/?]+\.jpe?g"), hold_back)
        page.evaluate(WATCH_FRAMES)
        started = time.monotonic()
        page.get_by_role("button", name="Next ▶").click()
        if during:
            during(page)
            # The image must still be held when the server's answer to `during` arrives: under load
            # that run outlasted the hold, and the new page showed without its labels for 331 ms
            # before the labelled drawing came (a page drawn whole, twice, not a mix). The hold
            # lasts until the run is over, however long it takes.
            settle(page, 0)
        page.wait_for_timeout(max(0.0, IMAGE_DELAY_S - (time.monotonic() - started)) * 1000)
        assert held, "the new page's image never went through the held-back route: the test tested nothing"
        released.append(True)
        for route in held:
            route.continue_()
        page.get_by_text(f"page 2 of {doc.page_count}", exact=False).first.wait_for(timeout=30_000)
        settle(page, 1000)
        stable_canvas(page)
        page.wait_for_timeout(1500)
        page.evaluate("() => { window.__rliStop = true; }")
        return page.evaluate("() => window.__rliFrames")
    finally:
        context.close()


def assert_old_page_then_new_page(frames, unlabelled_new_page_allowed: bool = False) -> None:
    print("distinct frames (ms after the first, share of pixels off from the old page, from the new):",
          [(t, round(d_old, 3), round(d_new, 3)) for t, d_old, d_new in frames])
    t_end, old_vs_new, _ = frames[-1]
    assert old_vs_new > 0.05, f"the turn did not change the picture ({old_vs_new:.1%} of pixels): frames {frames}"
    lasted = [later[0] - t for (t, *_), later in zip(frames, frames[1:])] + [0]
    mixed = [(t, ms, round(d_old, 3), round(d_new, 3))
             for (t, d_old, d_new), ms in zip(frames, lasted) if min(d_old, d_new) > SAME
             and not (unlabelled_new_page_allowed and d_new <= LABELS_ONLY)]
    assert not mixed, (
        f"{len(mixed)} of {len(frames)} distinct frames were neither the old page nor the new one "
        f"(ms after the first frame, ms shown, share of pixels off from the old page, from the new page): {mixed}")
    changed_at = next(t for t, d_old, _ in frames if d_old > SAME)
    assert changed_at >= (IMAGE_DELAY_S - 0.3) * 1000, (
        f"the picture changed {changed_at} ms after the turn, before the held-back image could arrive")


def test_a_page_turn_never_shows_the_new_boxes_over_the_old_image(app_server, chromium):
    assert_old_page_then_new_page(frames_of_a_turn(app_server, chromium))


def test_a_toggle_while_the_new_image_is_on_its_way_shows_no_half_drawn_page(app_server, chromium):
    """Two drawings of the new page wait for the same image (the turn's, then the one with labels):
    the canvas goes from the old page to the new one, never blank and never the new boxes over the
    old image. The canvas (streamlit-drawable-canvas) loads each drawing on its own, so when the image
    comes both finish, in order, and under load the first can show for a few frames (82 ms once in
    three runs on a loaded 2-core machine): the new page whole, before its labels, which is allowed."""
    def toggle_labels(page):
        page.wait_for_timeout(300)
        page.get_by_text("Labels", exact=True).first.click()

    assert_old_page_then_new_page(frames_of_a_turn(app_server, chromium, during=toggle_labels),
                                  unlabelled_new_page_allowed=True)

#!/usr/bin/env python3
# ANSI (tmux capture-pane -e) to HTML for scripts/screenshots: usage ansi2html.py COLS ROWS TITLE
# < capture > page.html. Handles the SGR attributes tmux emits (bold, dim, underline, reverse,
# 16/256/RGB colours); every line is padded to COLS cells so the page has the terminal's size.
import html, re, sys

# xterm's 16 colours, then the 6x6x6 cube and the grey ramp of the 256-colour palette
BASE = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
        "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
def pal(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (lv[n // 36], lv[n // 6 % 6], lv[n % 6])
    g = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (g, g, g)

FG, BG = "#d0d0d0", "#1c1c1c"
cols, rows, title = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
st = dict(fg=None, bg=None, bold=False, dim=False, ul=False, rev=False)

def sgr(params):
    p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
    i = 0
    while i < len(p):
        c = p[i]
        if c == 0:
            st.update(fg=None, bg=None, bold=False, dim=False, ul=False, rev=False)
        elif c == 1: st["bold"] = True
        elif c == 2: st["dim"] = True
        elif c == 22: st["bold"] = st["dim"] = False
        elif c == 4: st["ul"] = True
        elif c == 24: st["ul"] = False
        elif c == 7: st["rev"] = True
        elif c == 27: st["rev"] = False
        elif 30 <= c <= 37: st["fg"] = pal(c - 30)
        elif 90 <= c <= 97: st["fg"] = pal(c - 90 + 8)
        elif c == 39: st["fg"] = None
        elif 40 <= c <= 47: st["bg"] = pal(c - 40)
        elif 100 <= c <= 107: st["bg"] = pal(c - 100 + 8)
        elif c == 49: st["bg"] = None
        elif c in (38, 48) and i + 1 < len(p):
            if p[i + 1] == 5 and i + 2 < len(p):
                col = pal(p[i + 2]); i += 2
            elif p[i + 1] == 2 and i + 4 < len(p):
                col = "#%02x%02x%02x" % tuple(p[i + 2:i + 5]); i += 4
            else:
                col = None
            st["fg" if c == 38 else "bg"] = col
        i += 1

def style():
    fg, bg = st["fg"] or FG, st["bg"] or BG
    if st["rev"]:
        fg, bg = bg, fg
    css = "color:%s;background:%s" % (fg, bg)
    if st["bold"]: css += ";font-weight:bold"
    if st["dim"]: css += ";opacity:0.6"
    if st["ul"]: css += ";text-decoration:underline"
    return css

out = []
for line in sys.stdin.read().split("\n")[:rows]:
    cells, n = [], 0
    for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b[^a-zA-Z]*[a-zA-Z]|([^\x1b])", line):
        if m.group(2) is not None:
            if n < cols:
                cells.append((style(), m.group(2))); n += 1
        elif m.group(0).endswith("m") and m.group(0).startswith("\x1b["):
            sgr(m.group(1))
    spans, prev = [], None
    for css, ch in cells + [("color:%s;background:%s" % (FG, BG), " ")] * (cols - n):
        if css != prev:
            if prev is not None: spans.append("</span>")
            spans.append('<span style="%s">' % css); prev = css
        spans.append(html.escape(ch))
    if prev is not None: spans.append("</span>")
    out.append("".join(spans))
while len(out) < rows:
    out.append('<span style="background:%s">%s</span>' % (BG, " " * cols))
print('<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title><style>'
      'html,body{margin:0;padding:0;background:%s}'
      'pre{margin:0;padding:8px;font:14px/17px "DejaVu Sans Mono",monospace;'
      'font-kerning:none;font-variant-ligatures:none}'
      # a cell's background down to the line's bottom pixel: else an underscore, drawn below
      # the glyphs' box at 1x, shows the page's background (black on black)
      'span{padding-bottom:1px}</style></head><body><pre>%s</pre></body></html>'
      % (html.escape(title), BG, "\n".join(out)))

# Natural Earth 1:110m land -> one SVG path in equirectangular degrees (x = lon + 180, y = 90 - lat).
import json, sys
TOL = float(sys.argv[2]) if len(sys.argv) > 2 else 0.15
d = json.load(open(sys.argv[1]))

def dp(pts, tol):
    if len(pts) < 3: return pts
    (x1,y1),(x2,y2) = pts[0], pts[-1]
    dx, dy = x2-x1, y2-y1
    L = (dx*dx+dy*dy) ** 0.5
    best, idx = -1, 0
    for i in range(1, len(pts)-1):
        x, y = pts[i]
        dist = abs(dy*(x-x1) - dx*(y-y1)) / L if L else ((x-x1)**2+(y-y1)**2)**0.5
        if dist > best: best, idx = dist, i
    if best > tol:
        return dp(pts[:idx+1], tol)[:-1] + dp(pts[idx:], tol)
    return [pts[0], pts[-1]]

def ring(r):
    pts = [(round(lon+180, 1), round(90-lat, 1)) for lon, lat in r]
    out = []
    for p in pts:
        if not out or out[-1] != p: out.append(p)
    # split closed ring at the far point so DP keeps its shape
    if len(out) > 3:
        far = max(range(len(out)), key=lambda i: (out[i][0]-out[0][0])**2+(out[i][1]-out[0][1])**2)
        out = dp(out[:far+1], TOL)[:-1] + dp(out[far:], TOL)
    if out and out[0] == out[-1]: out = out[:-1]
    return out

def num(v):
    s = ('%.1f' % v).rstrip('0').rstrip('.')
    if s == '-0': s = '0'
    return s.replace('0.', '.', 1) if s.startswith('0.') else (s.replace('-0.', '-.', 1) if s.startswith('-0.') else s)

parts = []
for f in d['features']:
    g = f['geometry']
    polys = [g['coordinates']] if g['type'] == 'Polygon' else g['coordinates']
    for p in polys:
        for r in p:
            pts = ring(r)
            if len(pts) < 3: continue
            s = 'M' + num(pts[0][0]) + ' ' + num(pts[0][1])
            px, py = pts[0]
            for x, y in pts[1:]:
                dx, dy = round(x-px, 1), round(y-py, 1)
                a, b = num(dx), num(dy)
                s += 'l' + a + ('' if b.startswith('-') else ' ') + b
                px, py = x, y
            parts.append(s + 'z')
print(''.join(parts))

"""An independent reference for Cascudo, written from the rule page and the rulings
(cube coordinates, plain recursion over board copies, no code shared with pbem), used to
check pbem's engine: the geometry table tests/data/cascudo/geometry.txt, the perft figures
in tests/integration/cascudo.rs, and the legal cascades of random positions.

    python3 reference.py geometry                   the geometry table
    python3 reference.py "POSITION" list            the legal cascades, origin-dest-... form
    python3 reference.py "POSITION" DEPTH           perft (slow: with check by cascade,
                                                    depth 2 from the start takes some half
                                                    an hour)
    python3 reference.py --compare FILE             pbem's legal cascades and check verdicts
                                                    (dumped by tests/outside/reference.rs)
                                                    against this program's

Check is by cascade (ruling 7): the opponent's every chain of internal moves is played
out, plainly and slowly, to see whether its last move could land on the King's cell.
"""
import sys
FILES = "abcdefg"
LENS = [5, 6, 7, 8, 7, 6, 5]


def cube(f, rk):
    """The cube coordinates (q, r, s) of file f, rank rk (from 0): d4 is the origin, "up"
    is (0, -1, +1); the first cells of the files form a V whose point is d1."""
    q = f - 3
    r0 = 3 if q <= 0 else 3 - q
    r = r0 - rk
    return (q, r, -q - r)

CELLS={}
for f in range(7):
    for rk in range(LENS[f]):
        CELLS[cube(f,rk)] = FILES[f]+str(rk+1)
def dist(a,b): return max(abs(a[i]-b[i]) for i in range(3))
assert all(dist(c,(0,0,0))<=3 or dist(c,(0,-1,1))<=3 for c in CELLS)
assert len(CELLS)==44
ORTH=[(1,-1,0),(1,0,-1),(0,1,-1),(-1,1,0),(-1,0,1),(0,-1,1)]
DIAG=[(2,-1,-1),(1,1,-2),(-1,2,-1),(-2,1,1),(-1,-1,2),(1,-2,1)]
KN=set()
for d in ORTH:
    two=(2*d[0],2*d[1],2*d[2])
    for e in ORTH:
        # 60 degrees from d: e adjacent to d in the ring, i.e. dist(d,e)==1
        if dist(d,e)==1:
            KN.add((two[0]+e[0],two[1]+e[1],two[2]+e[2]))
assert len(KN)==12
def add(a,b): return (a[0]+b[0],a[1]+b[1],a[2]+b[2])
NAME=CELLS; POS={v:k for k,v in CELLS.items()}
UP=(0,-1,1); DOWN=(0,1,-1)
WCAP=[(1,-1,0),(-1,0,1)]   # upper-right, upper-left
BCAP=[(1,0,-1),(-1,1,0)]
def top(c, white):
    nxt = add(c, UP if white else DOWN)
    return nxt not in CELLS
def targets(board, c, piece):
    white = piece.isupper(); role=piece.upper()
    out=[]
    if role=='P':
        f=add(c, UP if white else DOWN)
        if f in CELLS and (board.get(f) is None or board[f].isupper()==white): out.append(f)
        for d in (WCAP if white else BCAP):
            t=add(c,d)
            if t in CELLS and board.get(t) is not None and board[t].isupper()!=white: out.append(t)
        return out
    dirs=[]
    if role in 'RQK': dirs+=ORTH
    if role in 'BQK': dirs+=DIAG
    for d in dirs:
        t=add(c,d)
        while t in CELLS:
            out.append(t)
            if board.get(t) is not None: break
            t=add(t,d)
    if role in 'NK':
        for d in KN:
            t=add(c,d)
            if t in CELLS: out.append(t)
    return out
def in_check(board, k, by_white):
    """Ruling 7: the King on k is in check when the side by_white, moving now, could make
    a cascade (ruling 4: at least two moves, every move but the last into an unmoved own
    token, no token twice; its own King's safety aside) whose last move lands on k. Every
    chain of internal moves is played out on a copy of the board, and at each step the
    token in hand is asked whether it could move onto k."""
    def rec(b, c, hand, moved, first):
        for t in targets(b, c, hand):
            if t == k and not first:
                return True
            occ = b.get(t)
            if occ is None or occ.isupper() != by_white or t in moved:
                continue
            promos = [None]
            if hand.upper() == 'P' and top(t, by_white): promos = ['Q', 'R', 'B', 'N']
            for pr in promos:
                nb = dict(b)
                nb[t] = hand if pr is None else (pr if by_white else pr.lower())
                if rec(nb, t, occ, moved | {t}, False):
                    return True
        return False
    for c, p in board.items():
        if p is not None and p.isupper() == by_white:
            b = dict(board); b[c] = None
            if rec(b, c, p, frozenset(), True):
                return True
    return False
def king(board, white):
    return [s for s, p in board.items() if p == ('K' if white else 'k')][0]
def legal(board, white):
    res=[]
    own=[c for c,p in board.items() if p is not None and p.isupper()==white]
    def rec(b, c, hand, moved, chain):
        for t in targets(b, c, hand):
            occ=b.get(t)
            promos=[None]
            if hand.upper()=='P' and top(t, white): promos=['Q','R','B','N']
            for pr in promos:
                piece = hand if pr is None else (pr if white else pr.lower())
                step = chain+[(NAME[t], pr)]
                if occ is not None and occ.isupper()==white:
                    if t in moved: continue
                    nb=dict(b); nb[t]=piece
                    rec(nb, t, occ, moved|{t}, step)
                else:
                    if len(chain)==1: continue
                    if occ is not None and occ.upper()=='K': continue
                    nb=dict(b); nb[t]=piece
                    if not in_check(nb,king(nb,white),not white): res.append(tuple(step))
    for c in own:
        b=dict(board); hand=b[c]; b[c]=None
        rec(b,c,hand,frozenset(),[(NAME[c],None)])
    return res
def play(board, turn, white):
    b=dict(board); c=POS[turn[0][0]]; hand=b[c]; b[c]=None
    for name,pr in turn[1:]:
        t=POS[name]
        if pr: hand = pr if white else pr.lower()
        occ=b.get(t); b[t]=hand
        if occ is not None and occ.isupper()==white: hand=occ
        else: break
    return b
def parse(fen):
    place,side=fen.split()[:2]
    rows=place.split('/'); b={c:None for c in CELLS}
    for i,row in enumerate(rows):
        rank=7-i
        cells=[FILES[f]+str(rank+1) for f in range(7) if rank<LENS[f]]
        at=0
        for ch in row:
            if ch.isdigit(): at+=int(ch)
            else: b[POS[cells[at]]]=ch; at+=1
    return b, side=='w'
def fmt(t):
    return t[0][0]+''.join('-'+n+('='+p if p else '') for n,p in t[1:])
def perft(b,w,d):
    ts=legal(b,w)
    if d==1: return len(ts)
    return sum(perft(play(b,t,w),not w,d-1) for t in ts)
def geometry():
    comp = {}
    for c in CELLS:
        if c in comp:
            continue
        idx = len(set(comp.values()))
        stack = [c]
        comp[c] = idx
        while stack:
            x = stack.pop()
            for d in DIAG:
                y = add(x, d)
                if y in CELLS and y not in comp:
                    comp[y] = idx
                    stack.append(y)
    assert len(set(comp.values())) == 3
    names = {comp[POS['d1']]: 'dark', comp[POS['d2']]: 'mid', comp[POS['d3']]: 'light'}
    for c in CELLS:
        for d in ORTH:
            if add(c, d) in CELLS:
                assert comp[add(c, d)] != comp[c]
    order = sorted(CELLS, key=lambda c: (CELLS[c][0], int(CELLS[c][1:])))
    print("# Every cell of the Cascudo board: its edge neighbours, its vertex neighbours, its knight")
    print("# targets and its colour. Written by a separate program from the rule page's description")
    print("# (cube coordinates, colours as the classes of cells joined by vertex steps, named after")
    print("# d1 dark, d2 mid, d3 light); src/games/cascudo/hex.rs must agree with every line.")
    print("# cell | edge neighbours | vertex neighbours | knight targets | colour")
    for c in order:
        e = sorted(CELLS[add(c, d)] for d in ORTH if add(c, d) in CELLS)
        v = sorted(CELLS[add(c, d)] for d in DIAG if add(c, d) in CELLS)
        k = sorted(CELLS[add(c, d)] for d in KN if add(c, d) in CELLS)
        print(f"{CELLS[c]} | {' '.join(e)} | {' '.join(v)} | {' '.join(k)} | {names[comp[c]]}")


def compare(path):
    """Reads pbem's dump (`P position`, then `C 1` or `C 0` for whether the side to move is
    in check, then one `T cascade` line per legal cascade) and compares each position with
    this program's own verdicts."""
    blocks = []
    for line in open(path):
        kind, _, rest = line.rstrip('\n').partition(' ')
        if kind == 'P': blocks.append((rest, [], []))
        elif kind == 'C': blocks[-1][1].append(rest == '1')
        elif kind == 'T': blocks[-1][2].append(rest)
    differ = 0
    for fen, check, turns in blocks:
        b, w = parse(fen)
        mine = sorted(fmt(t) for t in legal(b, w))
        checked = in_check(b, king(b, w), not w)
        if sorted(turns) != mine or check != [checked]:
            differ += 1
            print(f"{fen}: check pbem {check} reference {checked}; "
                  f"only pbem {sorted(set(turns) - set(mine))}, "
                  f"only reference {sorted(set(mine) - set(turns))}")
    print(f"{len(blocks)} positions, {differ} differ")


if __name__=='__main__':
    if sys.argv[1] == 'geometry':
        geometry()
        sys.exit()
    if sys.argv[1] == '--compare':
        compare(sys.argv[2])
        sys.exit()
    fen=sys.argv[1]; mode=sys.argv[2]
    b,w=parse(fen)
    if mode=='list':
        for t in sorted(fmt(t) for t in legal(b,w)): print(t)
    else:
        print(perft(b,w,int(mode)))

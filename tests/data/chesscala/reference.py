"""An independent reference for Chesscala, written from the rule page
(/work/shared/rules/chesscala.txt) and rulings 1-18 of RULINGS.md only (plain recursion
over board copies, no code shared with pbem's engine, whose move generation it was
written without reading), used to check pbem's engine: the perft figures in
tests/integration/chesscala.rs and the legal turns of random positions, as the multiset
of resulting position strings with their outcomes. Run from the repository's root:

    python3 tests/data/chesscala/reference.py "POSITION" list
        one line per legal turn: the resulting position string, a tab, its outcome
    python3 tests/data/chesscala/reference.py "POSITION" DEPTH
        perft (depth 2 from a setup: about a second; depth 3 is hours)
    python3 tests/data/chesscala/reference.py --compare FILE [-v]
        FILE holds blocks written by pbem's engine: a line "P <position>", then one line
        "T <result>\t<outcome>" per legal turn; prints each block that differs (-v: every
        position as it goes), then "N positions, M differ"; exits 1 if any differs
    python3 tests/data/chesscala/reference.py --selftest
        the fast check test (backwards from each King) against the slow one (every
        opposing piece's reach) on random boards

The comparison on 300 positions of seeded random games (some 20 minutes) is the ignored
test `cargo test --test integration chesscala -- --ignored`, which writes FILE to
target/tmp/chesscala-reference-2.txt and runs --compare on it.

An outcome is "-" (the game goes on or waits for a last turn), "1-0 m" / "0-1 a" (a win
by checkmate / attrition), "= m" (simultaneous checkmates), "= a" (attrition answered on
the last turn) or "= s" (stalemate). Where the page and the rulings are silent, this
program follows the engine's documented decisions (notation/chesscala.md): a stack is a
multiset; the double move skips full squares; a King step closes its mancala's double
move; a turn is a sequence of moves, two sequences that reach the same position being two
turns (only orders of one sowing, or choices among identical pieces, are merged); a game
that ends at once (simultaneous mates, the "no draws" option) keeps phase "-".
"""
import sys
from itertools import permutations

ORDER = "KQRBNHOMP"
W, B = 0, 1


def sq(f, r):
    return r * 6 + f


def name(s):
    return "abcdef"[s % 6] + str(s // 6 + 1)


def succ(s):
    """Ruling 1: up the b, d, f files, across at rank 8, down a, c, e, across at rank 1."""
    f, r = s % 6, s // 6
    if f % 2 == 1:
        return s + 6 if r < 7 else s - 1
    return s - 6 if r > 0 else s + 1


def color(p):
    return W if p.isupper() else B


def canon(pieces):
    return "".join(sorted(pieces, key=lambda p: (p.islower(), ORDER.index(p.upper()))))


def count(stack, side):
    return sum(1 for p in stack if color(p) == side)


def controls(stack, side):
    """Ruling 2: at least as many pieces as the opponent, Kings included."""
    return count(stack, side) >= count(stack, 1 - side)


def promote(p, s):
    """Ruling 12: a Pawn placed on its last rank becomes a Man."""
    if p == "P" and s // 6 == 7:
        return "M"
    if p == "p" and s // 6 == 0:
        return "m"
    return p


def remove(stack, p):
    i = stack.index(p)
    return stack[:i] + stack[i + 1:]


def on(f, r):
    return 0 <= f < 6 and 0 <= r < 8


QUEEN = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
ROOK = QUEEN[:4]
BISHOP = QUEEN[4:]
KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
SIGN = lambda x: (x > 0) - (x < 0)
FIELDS = {2: 3, 3: 2, 4: 5, 5: 4, 42: 43, 43: 42, 44: 45, 45: 44}
DOUBLE = {W: {7: "B", 9: "D", 11: "F"}, B: {36: "a", 38: "c", 40: "e"}}
MANCALA_FLAG = {W: "BDF", B: "ace"}


def reach(board, side, s, p):
    """Ruling 9-11: the (target, landing) pairs piece p of `side` on s could capture at,
    whatever stands on the target (the landing is where the piece ends)."""
    f, r = s % 6, s // 6
    role = p.upper()
    out = []
    if role in "QRB":
        for df, dr in {"Q": QUEEN, "R": ROOK, "B": BISHOP}[role]:
            x, y = f + df, r + dr
            while on(x, y):
                if board[sq(x, y)]:
                    out.append((sq(x, y), sq(x, y)))
                    break
                x, y = x + df, y + dr
    elif role == "N":
        for df, dr in KNIGHT:
            if on(f + df, r + dr):
                out.append((sq(f + df, r + dr), sq(f + df, r + dr)))
    elif role == "P":
        dr = 1 if side == W else -1
        for df in (-1, 1):
            if on(f + df, r + dr):
                out.append((sq(f + df, r + dr), sq(f + df, r + dr)))
    elif role == "M":
        for df, dr in QUEEN:
            if on(f + df, r + dr):
                out.append((sq(f + df, r + dr), sq(f + df, r + dr)))
    elif role == "K":
        if s in FIELDS:
            out.append((FIELDS[s], FIELDS[s]))
    elif role == "O":
        out.append((s, s))
    elif role == "H":
        for df, dr in QUEEN:
            k = 1
            while on(f + (k + 1) * df, r + (k + 1) * dr):
                land = sq(f + k * df, r + k * dr)
                if len(board[land]) < 4:
                    out.append((sq(f + (k + 1) * df, r + (k + 1) * dr), land))
                if board[land]:
                    break
                k += 1
        for x, y in KNIGHT:
            sx, sy = SIGN(x), SIGN(y)
            if on(f + x, r + y) and len(board[sq(f + sx, r + sy)]) < 4:
                out.append((sq(f + x, r + y), sq(f + sx, r + sy)))
            if on(f + 2 * x, r + 2 * y):
                mid = sq(f + x, r + y)
                land = sq(f + x + sx, r + y + sy)
                if (controls(board[mid], side) and len(board[mid]) < 4
                        and len(board[land]) < 4):
                    out.append((sq(f + 2 * x, r + 2 * y), land))
    return out


def sow_squares(board, s):
    """Ruling 3: the squares a sowing from s fills, in order (the same for every order)."""
    n = len([p for p in board[s] if p.upper() != "K"])
    fill = [len(x) for x in board]
    fill[s] -= n
    out = []
    at = s
    for _ in range(n):
        at = succ(at)
        while fill[at] >= 4:
            at = succ(at)
        fill[at] += 1
        out.append(at)
    return out


class State:
    __slots__ = ("board", "doubles", "lost")

    def __init__(self, board, doubles, lost):
        self.board, self.doubles, self.lost = board, doubles, lost

    def key(self):
        return (tuple(self.board), self.doubles, self.lost)


def captures(st, side, only_bombs_on=None):
    """Capturing moves: (state after); identical results merged."""
    seen = {}
    board = st.board
    for s in range(48):
        for p in set(board[s]):
            if color(p) != side:
                continue
            if only_bombs_on is not None and (p.upper() != "O" or s not in only_bombs_on):
                continue
            for t, land in reach(board, side, s, p):
                for v in set(board[t]):
                    if color(v) == side or v.upper() == "K":
                        continue
                    nb = list(board)
                    nb[s] = remove(nb[s], p)
                    nb[t] = remove(nb[t], v)
                    nb[land] = canon(nb[land] + promote(p, land))
                    lost = list(st.lost)
                    lost[1 - side] += 1
                    ns = State(nb, st.doubles, tuple(lost))
                    seen.setdefault(ns.key(), ns)
    return list(seen.values())


def sowings(st, side, first):
    """Sowing moves (rulings 3-6): (state after, squares where an own Bomb landed)."""
    out = {}
    board = st.board
    for s in range(48):
        if first and s % 6 in (0, 2):
            continue
        flag = MANCALA_FLAG[side][s % 6 // 2]
        doubles = st.doubles.replace(flag, "")
        stack = board[s]
        lift = [p for p in stack if p.upper() != "K"]
        if lift and controls(stack, side):
            squares = sow_squares(board, s)
            kings = "".join(p for p in stack if p.upper() == "K")
            for order in set(permutations(lift)):
                nb = list(board)
                nb[s] = kings
                bombs = set()
                for p, t in zip(order, squares):
                    nb[t] = nb[t] + promote(p, t)
                    if p == ("O" if side == W else "o"):
                        bombs.add(t)
                for t in squares:
                    nb[t] = canon(nb[t])
                ns = State(nb, doubles, st.lost)
                k = ns.key()
                if k in out:
                    out[k][1].update(bombs)
                else:
                    out[k] = (ns, bombs)
        king = "K" if side == W else "k"
        if king in stack and len(board[FIELDS[s]]) < 4:
            nb = list(board)
            nb[s] = remove(stack, king)
            nb[FIELDS[s]] = canon(nb[FIELDS[s]] + king)
            ns = State(nb, doubles, st.lost)
            out[ns.key()] = (ns, set())
        pawn = "P" if side == W else "p"
        if s in DOUBLE[side] and DOUBLE[side][s] in st.doubles and stack == pawn:
            fill = [len(x) for x in board]
            fill[s] = 0
            at = s
            for _ in range(2):
                at = succ(at)
                while fill[at] >= 4:
                    at = succ(at)
            nb = list(board)
            nb[s] = ""
            nb[at] = canon(nb[at] + promote(pawn, at))
            ns = State(nb, doubles, st.lost)
            out[ns.key()] = (ns, set())
    return list(out.values())


def checks(board, side):
    """Ruling 13 and 8: the pairs (attacking piece, attacked King of `side`)."""
    king = "K" if side == W else "k"
    kings = [s for s in range(48) if king in board[s]]
    opp = 1 - side
    bomb = "O" if opp == W else "o"
    n = 0
    for s in range(48):
        stack = board[s]
        if not stack:
            continue
        sown = None
        for p in set(stack):
            if color(p) != opp:
                continue
            targets = {t for t, _ in reach(board, opp, s, p)}
            if p == bomb and controls(stack, opp):
                if sown is None:
                    sown = set(sow_squares(board, s))
                targets |= sown
            n += stack.count(p) * sum(1 for k in kings if k in targets)
    return n


def in_check_slow(board, side):
    """Whether a King of `side` is in check, from every opposing piece's reach."""
    king = "K" if side == W else "k"
    kings = {s for s in range(48) if king in board[s]}
    opp = 1 - side
    bomb = "O" if opp == W else "o"
    for s in range(48):
        stack = board[s]
        for p in set(stack):
            if color(p) != opp:
                continue
            if any(t in kings for t, _ in reach(board, opp, s, p)):
                return True
            if p == bomb and controls(stack, opp) and kings.intersection(sow_squares(board, s)):
                return True
    return False


def in_check(board, side):
    """Whether a King of `side` is in check: the squares that reach each King, looked at
    backwards from it (the same geometry as `reach`; `--selftest` compares the two)."""
    king = "K" if side == W else "k"
    opp = 1 - side
    up = (lambda p: p.upper()) if opp == W else (lambda p: p.lower())
    Q, R, Bi, N, H, O, M, P = (up(c) for c in "QRBNHOMP")

    def at(f, r):
        return board[sq(f, r)] if on(f, r) else ""

    for k in range(48):
        if king not in board[k]:
            continue
        kf, kr = k % 6, k // 6
        if O in board[k]:
            return True
        for df, dr in QUEEN:
            x, y = kf + df, kr + dr
            while on(x, y) and not board[sq(x, y)]:
                x, y = x + df, y + dr
            if on(x, y):
                stack = board[sq(x, y)]
                if Q in stack or (R in stack and (df == 0 or dr == 0)) or (
                        Bi in stack and df != 0 and dr != 0):
                    return True
            # The Hammer lands on k - d (not full) after empty squares.
            lf, lr = kf - df, kr - dr
            if on(lf, lr) and len(board[sq(lf, lr)]) < 4:
                x, y = lf - df, lr - dr
                while on(x, y) and not board[sq(x, y)]:
                    x, y = x - df, y - dr
                if H in at(x, y):
                    return True
            if M in at(kf + df, kr + dr):
                return True
        for df in (-1, 1):
            if P in at(kf + df, kr - (1 if opp == W else -1)):
                return True
        for x, y in KNIGHT:
            sx, sy = SIGN(x), SIGN(y)
            if N in at(kf - x, kr - y):
                return True
            if H in at(kf - x, kr - y) and len(at(kf - x + sx, kr - y + sy)) < 4:
                return True
            hf, hr = kf - 2 * x, kr - 2 * y
            if H in at(hf, hr):
                mid = board[sq(kf - x, kr - y)]
                if (controls(mid, opp) and len(mid) < 4
                        and len(at(kf - x + sx, kr - y + sy)) < 4):
                    return True
    kings = {s for s in range(48) if king in board[s]}
    bomb = O
    for s in range(48):
        if bomb in board[s] and controls(board[s], opp) and kings.intersection(
                sow_squares(board, s)):
            return True
    return False


class Position:
    def __init__(self, text):
        fields = text.split()
        assert len(fields) in (7, 8), text
        board = [""] * 48
        for i, row in enumerate(fields[0].split("/")):
            r = 7 - i
            f = 0
            j = 0
            while j < len(row):
                c = row[j]
                if c.isdigit():
                    f += int(c)
                elif c == "(":
                    k = row.index(")", j)
                    board[sq(f, r)] = canon(row[j + 1:k])
                    f += 1
                    j = k
                else:
                    board[sq(f, r)] = c
                    f += 1
                j += 1
            assert f == 6, text
        self.side = W if fields[1] == "w" else B
        self.first = fields[2] == "1"
        d = "" if fields[3] == "-" else fields[3]
        self.st = State(board, "".join(c for c in "BDFace" if c in d),
                        tuple(int(x) for x in fields[4].split("/")))
        self.phase = fields[5]
        self.fullmove = int(fields[6])
        self.nodraws = len(fields) == 8
        assert not self.nodraws or fields[7] == "nodraws"
        self.outcome = None
        self.settle("-" if self.phase == "x" else self.phase)

    def clone(self):
        c = Position.__new__(Position)
        c.side, c.first, c.st, c.phase = self.side, self.first, self.st, self.phase
        c.fullmove, c.nodraws, c.outcome = self.fullmove, self.nodraws, self.outcome
        return c

    def text(self):
        rows = []
        for r in range(7, -1, -1):
            row = ""
            empty = 0
            for f in range(6):
                stack = self.st.board[sq(f, r)]
                if not stack:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += stack if len(stack) == 1 else "(" + stack + ")"
            if empty:
                row += str(empty)
            rows.append(row)
        fields = ["/".join(rows), "wb"[self.side], "1" if self.first else "-",
                  self.st.doubles or "-", "%d/%d" % self.st.lost, self.phase,
                  str(self.fullmove)]
        if self.nodraws:
            fields.append("nodraws")
        return " ".join(fields)

    def mated(self, side):
        """Ruling 14: a King of `side` in check, and no turn of `side` (were it to move,
        under the standard rules) after which none of its Kings is in check."""
        if not in_check(self.st.board, side):
            return False
        for st in turns(self.st, side, False):
            if not in_check(st.board, side):
                return False
        return True

    def reason(self, side):
        if self.mated(side):
            return "m"
        if self.st.lost[side] >= 12:
            return "a"
        return None

    def settle(self, before):
        """Ruling 15 and 17, after a turn played in phase `before` ("-", or the reason of
        the last turn just played: "m" or "a"), or on reading a position."""
        to_move, mover = self.side, 1 - self.side
        self.outcome = None
        if before in "ma":
            self.phase = before
            other = self.reason(to_move)
            if other is not None:
                self.outcome = "= " + other
            else:
                self.outcome = ("1-0 " if to_move == W else "0-1 ") + before
            return
        self.phase = "-"
        reason = self.reason(to_move)
        if reason is None:
            return
        if self.nodraws:
            self.outcome = ("1-0 " if mover == W else "0-1 ") + reason
        elif reason == "m" and self.mated(mover):
            self.outcome = "= m"
        else:
            self.phase = "x"

    def legal(self):
        """The positions after each legal turn (a list: a multiset)."""
        if self.outcome is not None:
            return []
        out = []
        before = self.reason(self.side) if self.phase == "x" else "-"
        for st in turns(self.st, self.side, self.first):
            if self.nodraws and in_check(st.board, self.side):
                continue
            p = self.clone()
            p.st = st
            p.first = False
            if self.side == B:
                p.fullmove += 1
            p.side = 1 - self.side
            p.settle(before)
            out.append(p)
        return out

    def final_outcome(self):
        """The outcome as the engine reports it, without a legal turn (rule 16)."""
        if self.outcome is not None:
            return self.outcome
        for st in turns(self.st, self.side, self.first):
            if not (self.nodraws and in_check(st.board, self.side)):
                return "-"
        if self.phase in "xma":
            return ("1-0 " if self.side == B else "0-1 ") + self.reason(self.side)
        return "= s"


def turns(st, side, first):
    """Rulings 7 and 8: every turn of `side` as the state after it, one per sequence of
    distinct moves."""
    for ns, bombs in sowings(st, side, first):
        yield ns
        if bombs:
            yield from captures(ns, side, only_bombs_on=bombs)
    for c in captures(st, side):
        for ns, _ in sowings(c, side, first):
            yield ns
    if checks(st.board, side) >= 2:
        for c in captures(st, side):
            yield from captures(c, side)
        for ns, bombs in sowings(st, side, first):
            done = {x.key() for x in captures(ns, side, bombs)} if bombs else set()
            for c in captures(ns, side):
                if c.key() not in done:
                    yield c
            for ns2, _ in sowings(ns, side, first):
                yield ns2


def perft(p, depth):
    if depth == 0:
        return 1
    children = p.legal()
    if depth == 1:
        return len(children)
    return sum(perft(c, depth - 1) for c in children)


def compare(path, verbose=False):
    blocks = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("P "):
            blocks.append((line[2:], []))
        elif line.startswith("T "):
            blocks[-1][1].append(line[2:])
    bad = 0
    for i, (text, engine) in enumerate(blocks):
        if verbose:
            print(i, len(engine), text, flush=True)
        p = Position(text)
        mine = sorted(c.text() + "\t" + c.final_outcome() for c in p.legal())
        engine = sorted(engine)
        if mine != engine:
            bad += 1
            print("DIFF", text)
            from collections import Counter
            a, b = Counter(mine), Counter(engine)
            for x in sorted((a - b).elements()):
                print("  reference only:", x)
            for x in sorted((b - a).elements()):
                print("  engine only:   ", x)
    print("%d positions, %d differ" % (len(blocks), bad))
    return 1 if bad else 0


def selftest():
    """The fast check test against the slow one, on random crowded boards."""
    import random
    rng = random.Random(5)
    for _ in range(5000):
        board = [""] * 48
        for s in range(48):
            if rng.random() < 0.45:
                board[s] = "".join(rng.choice("QRBNHOMPqrbnhomp")
                                   for _ in range(rng.randint(1, 4)))
        for fields, king in (((2, 3), "K"), ((4, 5), "K"), ((42, 43), "k"), ((44, 45), "k")):
            s = rng.choice(fields)
            board[s] = board[s][:3] + king
        board = [canon(x) for x in board]
        for side in (W, B):
            assert in_check(board, side) == in_check_slow(board, side), (side, board)
    print("in_check agrees with in_check_slow on 5000 boards")


def main():
    if sys.argv[1] == "--selftest":
        return selftest()
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], "-v" in sys.argv[3:]))
    p = Position(sys.argv[1])
    if sys.argv[2] == "list":
        for c in p.legal():
            print(c.text() + "\t" + c.final_outcome())
    else:
        print(perft(p, int(sys.argv[2])))


if __name__ == "__main__":
    main()

"""An independent reference for Chess with wickets, written from the rule page
(/work/shared/rules/chess-with-wickets.txt), rulings 1-16 and "All games" of RULINGS.md
and the position string of notation/wickets.md only (plain recursion over position
copies, no code shared with pbem's engine), used to check pbem's engine: perft from the
start and the legal turns of random positions, as the multiset of resulting position
strings with their outcomes. Run from the repository's root:

    python3 tests/data/wickets/reference.py "POSITION" list
        one line per legal turn: the resulting position string, a tab, its outcome
    python3 tests/data/wickets/reference.py "POSITION" DEPTH
        perft (from the start: depth 3 in seconds, depth 4 in minutes)
    python3 tests/data/wickets/reference.py --compare FILE [-v]
        FILE holds blocks written by pbem's engine: a line "P <position>", then one line
        "T <result>\t<outcome>" per legal turn; prints each block that differs (-v: every
        position as it goes), then "N positions, M differ"; exits 1 if any differs

An outcome is "-" (none), "1-0 k" / "0-1 k" (the King Defender's wicket taken), "1-0 d" /
"0-1 d" (no piece left to name Defender), "1-0 m" / "0-1 m" (checkmate), "= s"
(stalemate), "= d" (dead: bare Kings, ruling 15) or "= 75" (seventy-five moves).

Where the page and the rulings are silent this program follows notation/wickets.md: a
turn is naming, move, drop, throw and decision together; the Dice turns list each roll
(and in Dice II each sacrifice and second roll after a failing first roll); a Cards
attempt is listed once with its cards still to be played (the position then awaits
them: "/-" in the mode field, and no turn follows); after castling King and Rook may
both throw; a Ball landing on the en passant square cancels en passant; a Ball that
lies loose blocks lines like a piece.
"""
import sys
from collections import Counter

W, B = 0, 1
W0, W9 = (4, -1), (4, 8)
ROOK = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
CARDS = [s + str(v) for s in "CDHS" for v in range(1, 11)]


def valid(p):
    f, r = p
    return (0 <= f < 8 and 0 <= r < 8) or p in (W0, W9)


def step(p, d):
    q = (p[0] + d[0], p[1] + d[1])
    return q if valid(q) else None


def pname(p):
    if p == W0:
        return "w0"
    if p == W9:
        return "w9"
    return "abcdefgh"[p[0]] + str(p[1] + 1)


def parse_place(s):
    if s == "w0":
        return W0
    if s == "w9":
        return W9
    return ("abcdefgh".index(s[0]), int(s[1]) - 1)


def color(piece):
    return W if piece.isupper() else B


def wicket(c):
    return W0 if c == W else W9


class Position:
    def __init__(self, text):
        f = text.split()
        self.board = {}
        self.loose = [None, None]
        for i, row in enumerate(f[0].split("/")):
            r, x = 7 - i, 0
            for ch in row:
                if ch.isdigit():
                    x += int(ch)
                    continue
                if ch == "o":
                    self.loose[W] = (x, r)
                elif ch == "O":
                    self.loose[B] = (x, r)
                else:
                    self.board[(x, r)] = ch
                x += 1
        self.turn = W if f[1] == "w" else B
        self.castling = "" if f[2] == "-" else f[2]
        self.ep = None if f[3] == "-" else parse_place(f[3])
        for place, ch in zip((W0, W9), f[4].split(",")):
            if ch == "o":
                self.loose[W] = place
            elif ch == "O":
                self.loose[B] = place
            elif ch != "-":
                self.board[place] = ch
        pair = lambda s: [None if x == "-" else parse_place(x) for x in s.split(",")]
        self.haver = pair(f[5])
        self.defender = pair(f[6])
        parts = (f[7] if len(f) > 7 else "det").split("/")
        self.mode = parts[0]
        self.discards = parts[1] if len(parts) > 1 else None
        self.attempt = parts[2] if len(parts) > 2 else None
        self.half = int(f[8]) if len(f) > 8 else 0
        self.full = int(f[9]) if len(f) > 9 else 1

    def copy(self):
        c = Position.__new__(Position)
        c.__dict__ = dict(self.__dict__)
        c.board = dict(self.board)
        c.loose = list(self.loose)
        c.haver = list(self.haver)
        c.defender = list(self.defender)
        return c

    def text(self):
        rows = []
        for r in range(7, -1, -1):
            row, empty = "", 0
            for x in range(8):
                ch = self.char((x, r))
                if ch == "-":
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += ch
            rows.append(row + (str(empty) if empty else ""))
        side = "w" if self.turn == W else "b"
        cast = "".join(c for c in "KQkq" if c in self.castling) or "-"
        ep = pname(self.ep) if self.ep else "-"
        wk = self.char(W0) + "," + self.char(W9)
        pair = lambda v: ",".join(pname(p) if p else "-" for p in v)
        mode = self.mode
        if self.discards is not None or self.attempt is not None:
            mode += "/" + (self.discards or "-")
        if self.attempt is not None:
            mode += "/" + self.attempt
        return " ".join([
            "/".join(rows), side, cast, ep, wk, pair(self.haver), pair(self.defender),
            mode, str(self.half), str(self.full),
        ])

    def char(self, p):
        if p in self.board:
            return self.board[p]
        if self.loose[W] == p:
            return "o"
        if self.loose[B] == p:
            return "O"
        return "-"

    def empty(self, p):
        return p not in self.board and p not in self.loose

    def pieces(self, c):
        return [p for p, ch in self.board.items() if color(ch) == c]

    def king(self, c):
        for p in self.pieces(c):
            if self.board[p].upper() == "K":
                return p
        return None

    # What a piece reaches (rulings 7, 8, 10): from the board only for attacks.
    def reach(self, p, pawn_captures=True):
        ch = self.board[p]
        kind, c = ch.upper(), color(ch)
        out = []
        if kind == "N":
            out = [q for q in (step(p, d) for d in KNIGHT) if q]
        elif kind == "K":
            out = [q for q in (step(p, d) for d in ROOK + BISHOP) if q]
        elif kind == "P":
            fwd = 1 if c == W else -1
            out = [q for q in (step(p, (-1, fwd)), step(p, (1, fwd))) if q]
        else:
            dirs = {"R": ROOK, "B": BISHOP, "Q": ROOK + BISHOP}[kind]
            for d in dirs:
                q = step(p, d)
                while q:
                    out.append(q)
                    if not self.empty(q):
                        break
                    q = step(q, d)
        return out

    def attacked(self, target, by):
        for p in self.pieces(by):
            if p in (W0, W9):
                continue  # page rule 11: pieces in the wickets give no check
            if target in self.reach(p):
                return True
        return False

    def in_check(self, c):
        k = self.king(c)
        return k is not None and self.attacked(k, 1 - c)

    def sees(self, c):
        d = self.defender[c]
        if d is None or d in (W0, W9) or d not in self.board:
            return False
        return wicket(c) in self.reach(d)

    # Moves: (from, to, promotion, kind) with kind in n(ormal), c(apture), b(all), e(p),
    # K/Q (castling).
    def moves(self):
        us = self.turn
        out = []
        for p in self.pieces(us):
            ch = self.board[p]
            kind = ch.upper()
            if kind == "P":
                fwd = 1 if us == W else -1
                last = 7 if us == W else 0
                promos = lambda q: ["Q", "R", "B", "N"] if q[1] == last else [None]
                one = (p[0], p[1] + fwd)
                if 0 <= one[1] < 8 and self.empty(one):
                    out += [(p, one, x, "n") for x in promos(one)]
                    two = (p[0], p[1] + 2 * fwd)
                    if p[1] == (1 if us == W else 6) and self.empty(two):
                        out.append((p, two, None, "n"))
                for q in self.reach(p):
                    if q in (W0, W9):
                        continue
                    if q == self.ep and self.empty(q):
                        out.append((p, q, None, "e"))
                    elif not self.empty(q):
                        k = self.move_kind(p, q)
                        if k:
                            out += [(p, q, x, k) for x in promos(q)]
                continue
            for q in self.reach(p):
                k = self.move_kind(p, q)
                if k:
                    out.append((p, q, None, k))
        out += self.castlings()
        return out

    def move_kind(self, p, q):
        us = self.turn
        is_def = self.defender[us] == p
        if q in self.board:
            ch = self.board[q]
            if color(ch) == us or ch.upper() == "K":
                return None
            kind = "c"
        elif q in self.loose:
            if self.loose[us] != q or is_def:  # rules 3, 9: own Ball, never a Defender
                return None
            kind = "b"
        else:
            kind = "n"
        if q == wicket(us) and not is_def:  # rule 3
            return None
        if q == wicket(1 - us) and not (self.haver[us] == p or kind == "b"):  # rules 3, 14
            return None
        return kind

    def castlings(self):
        us = self.turn
        r = 0 if us == W else 7
        k = (4, r)
        if self.board.get(k) != ("K" if us == W else "k"):
            return []
        out = []
        for side, rf, kt, between in (("K", 7, 6, [5, 6]), ("Q", 0, 2, [1, 2, 3])):
            letter = side if us == W else side.lower()
            if letter not in self.castling:
                continue
            if self.board.get((rf, r)) != ("R" if us == W else "r"):
                continue
            if any(not self.empty((x, r)) for x in between):
                continue
            path = [4, 5, 6] if side == "K" else [4, 3, 2]
            if any(self.attacked((x, r), 1 - us) for x in path):
                continue
            out.append((k, (kt, r), None, side))
        return out

    def apply_move(self, m):
        """Plays the move part; returns whether an opposing Ball-haver was captured."""
        p, q, promo, kind = m
        us, them = self.turn, 1 - self.turn
        ch = self.board[p]
        taken_haver = False
        if kind in ("K", "Q"):
            r = p[1]
            rf, rt = (7, 5) if kind == "K" else (0, 3)
            rook = self.board.pop((rf, r))
            del self.board[p]
            self.board[q] = ch
            self.board[(rt, r)] = rook
            for roles in (self.haver, self.defender):
                if roles[us] == p:
                    roles[us] = q
                elif roles[us] == (rf, r):
                    roles[us] = (rt, r)
        else:
            victim = q if kind == "c" else ((q[0], p[1]) if kind == "e" else None)
            if victim:
                if self.defender[them] == victim:
                    self.defender[them] = None
                if self.haver[them] == victim:
                    self.haver[them] = None
                    taken_haver = True
                del self.board[victim]
            if kind == "b":
                self.loose[us] = None
            del self.board[p]
            self.board[q] = (promo if us == W else promo.lower()) if promo else ch
            for roles in (self.haver, self.defender):
                if roles[us] == p:
                    roles[us] = q
            if kind == "b":
                self.haver[us] = q
        if ch.upper() == "K":
            self.castling = "".join(c for c in self.castling if color(c) != us)
        for corner, letter in (((7, 0), "K"), ((0, 0), "Q"), ((7, 7), "k"), ((0, 7), "q")):
            if corner in (p, q):
                self.castling = self.castling.replace(letter, "")
        self.ep = None
        if ch.upper() == "P" and abs(q[1] - p[1]) == 2:
            self.ep = (p[0], (p[1] + q[1]) // 2)
        if ch.upper() == "P" or kind in ("c", "b", "e"):
            self.half = 0
        else:
            self.half = min(self.half + 1, 1_000_000_000)
        return taken_haver

    def throw_targets(self, m):
        """Rule 4, 7, 15: where the Ball-haver that moved (after castling, King or Rook)
        may throw: queen lines over empty places, to the first own non-Defender piece or
        an empty place, never the own wicket."""
        us = self.turn
        h = self.haver[us]
        if h is None or m[3] == "b":
            return set()
        if m[3] in ("K", "Q"):
            r = m[1][1]
            rook = (5 if m[3] == "K" else 3, r)
            throwers = [m[1], rook] if h in (m[1], rook) else []
        else:
            throwers = [m[1]] if h == m[1] else []
        out = set()
        for t in throwers:
            for d in ROOK + BISHOP:
                q = step(t, d)
                while q:
                    if self.empty(q):
                        if q != wicket(us):
                            out.add(q)
                    else:
                        if q in self.board and color(self.board[q]) == us and self.defender[us] != q:
                            out.add(q)
                        break
                    q = step(q, d)
        out.discard(h)
        return out

    def throw(self, target, sacrifices, success):
        us, them = self.turn, 1 - self.turn
        if target in self.board:
            self.haver[us] = target  # a pass (ruling 14 in a wicket too)
            return
        self.haver[us] = None
        self.loose[us] = target
        for s in sacrifices:
            del self.board[s]
        if self.ep == target:
            self.ep = None
        if success and target == wicket(them) and self.defender[them]:
            del self.board[self.defender[them]]
            self.defender[them] = None

    def sacrificable(self):
        us = self.turn
        return sorted(p for p in self.pieces(us)
                      if self.board[p].upper() != "K" and self.defender[us] != p)

    def attempts(self, safe):
        """(results) of a scoring attempt: a list of (sacrifices, success) to play, after
        rulings 12 and 13. `safe(sacrifices, success)` tells king safety."""
        mode = self.mode
        them = 1 - self.turn
        sees = self.sees(them)
        out = []
        if mode in ("cards", "cards2", "dice", "dice2"):
            if not (safe([], True) and safe([], False)):
                return out
        if mode in ("cards", "cards2"):
            return [("cards", [], False)]
        if mode in ("dice", "dice2"):
            need = 5 if sees else 3
            seconds = []
            if mode == "dice2":
                for s in self.sacrificable():
                    if safe([s], True) and safe([s], False):
                        after = self.copy()
                        del after.board[s]
                        seconds.append((s, 5 if after.sees(them) else 3))
            for first in range(1, 7):
                out.append(("roll", [], first >= need))
                if first < need:
                    for s, need2 in seconds:
                        for second in range(1, 7):
                            out.append(("roll", [s], second >= need2))
            return out
        if not sees:
            return [("det", [], True)] if safe([], True) else []
        if safe([], False):
            out.append(("det", [], False))
        k = 3 if mode == "det" else 2
        pieces = self.sacrificable()

        def combos(start, chosen):
            if len(chosen) == k:
                if safe(chosen, True):
                    out.append(("det", list(chosen), True))
                return
            for i in range(start, len(pieces)):
                combos(i + 1, chosen + [pieces[i]])
        combos(0, [])
        return out

    def wicket_end(self):
        for c in (W, B):
            if self.king(c) is None:
                return ("0-1" if c == W else "1-0") + " k"
        us = self.turn
        if self.defender[us] is None and not [p for p in self.pieces(us) if p != self.haver[us]]:
            return ("0-1" if us == W else "1-0") + " d"
        return None

    def finish(self):
        if self.turn == B:
            self.full = min(self.full + 1, 1_000_000_000)
        self.turn = 1 - self.turn

    def results(self):
        """The position after every legal turn."""
        if self.wicket_end() or self.attempt is not None:
            return []
        us = self.turn
        bases = [self]
        if self.defender[us] is None:
            bases = []
            for p in self.pieces(us):
                if p != self.haver[us]:
                    b = self.copy()
                    b.defender[us] = p
                    bases.append(b)
        out = []
        for base in bases:
            for m in base.moves():
                moved = base.copy()
                if moved.apply_move(m):
                    drops = [q for q in (step(m[1], d) for d in ROOK + BISHOP)
                             if q and moved.empty(q)]
                    for q in drops:  # rule 8, ruling 11 (a wicket too)
                        dropped = moved.copy()
                        dropped.loose[1 - us] = q
                        out += dropped.after_drop(m)
                else:
                    out += moved.after_drop(m)
        return out

    def after_drop(self, m):
        us = self.turn
        out = []
        if not self.in_check(us):
            done = self.copy()
            done.finish()
            out.append(done)
        for target in self.throw_targets(m):
            def thrown(sacrifices, success):
                t = self.copy()
                t.throw(target, sacrifices, success)
                return t

            safe = lambda s, ok: not thrown(s, ok).in_check(us)
            if target == wicket(1 - us) and self.empty(target):
                for how, sacrifices, success in self.attempts(safe):
                    t = thrown(sacrifices, success)
                    if how == "cards":
                        t.discards = t.discards or "-"
                        t.attempt = "-"
                    t.finish()
                    out.append(t)
            elif safe([], False):
                t = thrown([], False)
                t.finish()
                out.append(t)
        return out

    def outcome(self):
        if self.attempt is not None:
            return "-"
        end = self.wicket_end()
        if end:
            return end
        if all(ch.upper() == "K" for ch in self.board.values()):
            return "= d"
        if not self.results():
            if self.in_check(self.turn):
                return ("0-1" if self.turn == W else "1-0") + " m"
            return "= s"
        if self.half >= 150:
            return "= 75"
        return "-"


def perft(p, depth):
    if depth == 0:
        return 1
    rs = p.results()
    if depth == 1:
        return len(rs)
    return sum(perft(r, depth - 1) for r in rs)


def listing(p):
    return Counter(r.text() + "\t" + r.outcome() for r in p.results())


def compare(path, verbose=False):
    blocks, current = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("P "):
            current = (line[2:], Counter())
            blocks.append(current)
        elif line.startswith("T "):
            current[1][line[2:]] += 1
    differ = 0
    for text, theirs in blocks:
        ours = listing(Position(text))
        if verbose:
            print(text)
        if ours != theirs:
            differ += 1
            print("P", text)
            for k in sorted((ours - theirs).elements()):
                print("  only the reference:", k)
            for k in sorted((theirs - ours).elements()):
                print("  only pbem:", k)
    print(f"{len(blocks)} positions, {differ} differ")
    return 1 if differ else 0


def main():
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], "-v" in sys.argv[3:]))
    p = Position(sys.argv[1])
    if sys.argv[2] == "list":
        for r in p.results():
            print(r.text() + "\t" + r.outcome())
    else:
        print(perft(p, int(sys.argv[2])))


if __name__ == "__main__":
    main()

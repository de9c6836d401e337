#!/usr/bin/env bash
# Makes examples/wickets-dice.pgn and examples/wickets-cards.pgn: two games of Chess with
# wickets played through pbem by mail, so that `pbem validate` proves their chance fair.
#
# Alice (White) and Bob (Black) each get a home in a scratch folder (a config file, a games
# folder, an outbox). Every turn is played with the commands a player types: `pbem new`,
# `pbem move`, `pbem send --dry-run DIR` (the mail written as a file) and the opponent's
# `pbem receive FILE`; PBEM_NOW gives every command its instant, so the stamps are the
# same from run to run. The dice and the deal are not: they come from both players'
# secret seeds, drawn afresh by each run. Each game follows a plan whose scoring attempts
# must fail or succeed as planned (the game is interesting that way, and the next turns
# depend on it); when chance decides otherwise, the game is thrown away and played again
# from `pbem new`, as often as it takes. The cards are chosen from the hands pbem shows
# each player: the highest to win a pair, the lowest to lose it.
#
#   bash examples/make-chance-games.sh            # both games
#   bash examples/make-chance-games.sh dice       # only the Dice game (or: cards)
#
# PBEM names the binary to use; by default the debug build (made if needed).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PBEM:-}" ]; then
    cargo build --quiet
    PBEM="$PWD/target/debug/pbem"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The clock: seconds since the epoch, moved on by `later`.
clock=0
now() { date -u -d "@$clock" +%Y-%m-%dT%H:%M:%SZ; }
later() { clock=$((clock + $1)); }

# pbem as PLAYER (alice or bob) at the clock's instant.
as() {
    local who=$1
    shift
    PBEM_NOW=$(now) "$PBEM" --config "$scratch/$who/config.yaml" "$@"
}
other() { if [ "$1" = alice ]; then echo bob; else echo alice; fi; }
die() {
    echo "make-chance-games: $*" >&2
    exit 1
}

# Two fresh homes; prints nothing.
homes() {
    rm -rf "$scratch/alice" "$scratch/bob"
    as alice config init --name Alice --email alice@example.org >/dev/null
    as bob config init --name Bob --email bob@example.org >/dev/null
}

# PLAYER mails the game to the other, who takes the mail in an hour later.
mail() {
    local who=$1 mail
    later 60
    mail=$(as "$who" send --dry-run "$scratch/$who/sent" "$game") || die "$who: send failed"
    later 3600
    as "$(other "$who")" receive "$mail" >/dev/null || die "$(other "$who"): receive $mail failed"
}

# PLAYER makes TURN, then mails it.
turn() {
    later 7200
    as "$1" move "$game" "$2" >/dev/null || die "$1: move $2 failed"
    mail "$1"
}

# Whether the last attempt took the wicket, as PLAYER's pbem sees it (PLAYER is the side
# whose wicket it was): it must name a new Defender, or it lost with its King Defender.
taken() {
    local legal
    if ! legal=$(as "$1" legal "$game" 2>/dev/null); then
        return 0
    fi
    [[ $(head -n 1 <<<"$legal") =~ ^D[a-h][1-8]: ]]
}

# The cards of PLAYER's hand as `pbem show` tells it, one a line.
hand() {
    as "$1" show "$game" | sed -n 's/^your hand: //p' | sed 's/ (.*//' | tr ' ' '\n'
}

# The cards PLAYER may play now (`pbem legal` while its card is awaited), one a line;
# nothing when no card of PLAYER's is awaited.
playable() {
    local legal
    legal=$(as "$1" legal "$game" 2>"$scratch/legal.err") || return 0
    grep -q "from your hand" "$scratch/legal.err" || return 0
    grep -v '^-$' <<<"$legal"
}

# The highest (`high`) or lowest (`low`) card of the list on standard input.
pick() {
    local order=-n
    [ "$1" = high ] && order=-rn
    sed 's/^\([CDHS]\)\([0-9]*\)$/\2 \1\2/' | sort $order -k1,1 | head -n 1 | cut -d' ' -f2
}

# A game of Chess with wickets in MODE by mail; its id goes to `game`.
start() {
    homes
    clock=$(date -u -d 2026-11-22T09:00:00Z +%s)
    local path
    path=$(as alice new --variant wickets --decision "$1" \
        --white Alice --white-email alice@example.org --black Bob --black-email bob@example.org)
    game=$(basename "$path" .pgn)
}

# The game both examples play: each side's Knight picks up its Ball and throws it into
# the opposing wicket. White's attempt takes w9 (Black's Queen, its Defender, leaves the
# board; Black names the f8 Bishop), Black's on w0 fails (White's Queen stays), and Black,
# a Queen down, resigns a few turns later.
#
# One step a line: PLAYER TURN, or PLAYER TURN taken|kept for a scoring attempt that must
# take or keep the wicket. In the Cards game the thrower's card and the reply are added.
plan='alice e4
bob e5
alice Ke2:f3
bob Ke7:f6
alice Nxf3
bob Nxf6
alice Kd3
bob Kd6
alice Nxe5:w9 taken
bob Df8:Nxe4:w0 kept
alice Kxe4
bob Nc6
alice Nxc6
bob dxc6
alice d4'

# A scoring attempt by PLAYER in MODE (dice or cards) that must end as WANTED (taken or
# kept); returns 1 when chance decided otherwise.
attempt() {
    local who=$1 token=$2 wanted=$3 mode=$4 them card
    them=$(other "$who")
    if [ "$mode" = dice ]; then
        turn "$who" "$token"
    else
        # The thrower leads its highest card to take the wicket, its lowest to keep it;
        # the opponent replies with its lowest playable card, or its highest.
        local lead=high reply=low
        [ "$wanted" = kept ] && lead=low reply=high
        card=$(hand "$who" | pick $lead)
        turn "$who" "${token}_c$card"
        # Ties (impossible while the Defender sees its wicket) are played out the same way.
        local player=$them order=$reply
        while card=$(playable "$player" | pick $order) && [ -n "$card" ]; do
            later 1800
            as "$player" move "$game" "$card" >/dev/null || die "$player: move $card failed"
            mail "$player"
            if [ "$player" = "$them" ]; then player=$who order=$lead; else player=$them order=$reply; fi
        done
    fi
    if taken "$them"; then
        [ "$wanted" = taken ]
    else
        [ "$wanted" = kept ]
    fi
}

# Plays the plan in MODE (dice or cards); returns 1 when chance went otherwise.
play() {
    local mode=$1 who token wanted
    while read -r who token wanted; do
        if [ -n "$wanted" ]; then
            attempt "$who" "$token" "$wanted" "$mode" || return 1
        else
            turn "$who" "$token"
        fi
    done <<<"$plan"
    # Bob resigns; his mail carries the result (and in the Cards game his seed), and
    # Alice's pbem answers with hers.
    later 7200
    as bob resign "$game" >/dev/null
    mail bob
    if [ "$mode" = cards ]; then
        mail alice
    fi
}

# Plays MODE's game until chance follows the plan, and writes examples/wickets-MODE.pgn.
make() {
    local mode=$1 decision tries=0
    decision=Dice
    [ "$mode" = cards ] && decision=Cards
    until start "$decision" && play "$mode"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 100 ]; then
            echo "make-chance-games: $mode: chance never followed the plan in 100 games" >&2
            exit 1
        fi
    done
    cp "$scratch/bob/games/$game.pgn" "examples/wickets-$mode.pgn"
    echo "examples/wickets-$mode.pgn: played $((tries + 1)) time(s) until chance followed the plan"
    "$PBEM" validate "examples/wickets-$mode.pgn"
}

[ $# -gt 0 ] || set -- dice cards
for mode in "$@"; do
    make "$mode"
done

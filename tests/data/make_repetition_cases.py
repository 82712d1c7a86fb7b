#!/usr/bin/env python3
# make_repetition_cases.py - one-off converter (not part of the build) that wrote repetition_cases.tsv.
#
# Reads the CSA games of ../shared/data/fixtures/shogi-server/csa and the KIF records of
# ../shared/data/fixtures/tsshogi/extracted, replays them on a minimal board model of its own (no
# legality checks: the files say which piece moves where), and prints one USI "position ... moves ..."
# line per record together with an independent count of occurrences of the final position.
# The expected verdicts in the TSV come from the files and their projects' tests, not from this script
# and not from kifucam's engine (the EXPECT table below says where each comes from); this script only
# checks that its replay agrees with the closing board diagrams the files carry and that the records
# that end in a repetition end on their fourth occurrence, and counts the ply of the first occurrence.
# perpetualCheck_append_goForward_goBack.kif is left out: it tests variations, not repetition.
#
# usage: python3 tests/data/make_repetition_cases.py [SHARED_DATA_DIR] > tests/data/repetition_cases.tsv
import os
import re
import sys

CSA_KIND = {'FU': 'P', 'KY': 'L', 'KE': 'N', 'GI': 'S', 'KI': 'G', 'KA': 'B', 'HI': 'R', 'OU': 'K',
            'TO': '+P', 'NY': '+L', 'NK': '+N', 'NG': '+S', 'UM': '+B', 'RY': '+R'}
KANJI_KIND = {'歩': 'P', '香': 'L', '桂': 'N', '銀': 'S', '金': 'G', '角': 'B', '飛': 'R', '玉': 'K',
              '王': 'K', 'と': '+P', '杏': '+L', '圭': '+N', '全': '+S', '馬': '+B', '龍': '+R',
              '竜': '+R', '成香': '+L', '成桂': '+N', '成銀': '+S'}
ZEN_DIGIT = {c: i + 1 for i, c in enumerate('１２３４５６７８９')}
KAN_DIGIT = {c: i + 1 for i, c in enumerate('一二三四五六七八九')}
HAND_ORDER = 'RBGSNLP'
START = 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'


class Board:
    """board[(file, rank)] = (colour 0 sente / 1 gote, kind 'P'..'K' or '+P'..); hands[c][kind]."""

    def __init__(self):
        self.board = {}
        self.hands = [dict.fromkeys(HAND_ORDER, 0), dict.fromkeys(HAND_ORDER, 0)]
        self.side = 0

    def key(self):
        return (tuple(sorted(self.board.items())), tuple(tuple(sorted(h.items())) for h in self.hands),
                self.side)

    def sfen(self):
        rows = []
        for rank in range(1, 10):
            row, empty = '', 0
            for file in range(9, 0, -1):
                p = self.board.get((file, rank))
                if p is None:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += p[1] if p[0] == 0 else p[1].lower()
            rows.append(row + (str(empty) if empty else ''))
        hand = ''
        for c in (0, 1):
            for k in HAND_ORDER:
                n = self.hands[c][k]
                if n:
                    hand += (str(n) if n > 1 else '') + (k if c == 0 else k.lower())
        return '/'.join(rows) + (' b ' if self.side == 0 else ' w ') + (hand or '-') + ' 1'

    def load_sfen(self, sfen):
        bd, side, hand = sfen.split()[:3]
        self.__init__()
        for r, row in enumerate(bd.split('/')):
            file, prom = 9, ''
            for ch in row:
                if ch.isdigit():
                    file -= int(ch)
                elif ch == '+':
                    prom = '+'
                else:
                    self.board[(file, r + 1)] = (0 if ch.isupper() else 1, prom + ch.upper())
                    file, prom = file - 1, ''
        self.side = 0 if side == 'b' else 1
        if hand != '-':
            for n, k in re.findall(r'(\d*)([A-Za-z])', hand):
                self.hands[0 if k.isupper() else 1][k.upper()] += int(n or 1)

    def move(self, frm, to, kind_after, drop_kind=None):
        """frm/to are (file, rank); frm None for a drop. Returns the USI text of the move."""
        c = self.side
        sq = lambda s: '%d%s' % (s[0], 'abcdefghi'[s[1] - 1])
        if frm is None:
            assert self.board.get(to) is None, ('drop on occupied', to)
            assert self.hands[c][drop_kind] > 0, ('drop not in hand', drop_kind)
            self.hands[c][drop_kind] -= 1
            self.board[to] = (c, drop_kind)
            usi = '%s*%s' % (drop_kind, sq(to))
        else:
            pc = self.board.pop(frm)
            assert pc[0] == c, ('wrong colour', frm)
            cap = self.board.get(to)
            if cap is not None:
                assert cap[0] != c
                self.hands[c][cap[1].lstrip('+')] += 1
            promo = kind_after != pc[1]
            if promo:
                assert kind_after == '+' + pc[1], (pc, kind_after)
            self.board[to] = (c, kind_after)
            usi = sq(frm) + sq(to) + ('+' if promo else '')
        self.side ^= 1
        return usi


def read_csa(path):
    b = Board()
    b.load_sfen(START)
    text = open(path, encoding='latin-1').read()
    assert re.search(r'^P1-KY-KE-GI-KI-OU-KI-GI-KE-KY', text, re.M), 'not the even start'
    moves = []
    for line in text.splitlines():
        m = re.match(r'^([+-])(\d)(\d)(\d)(\d)([A-Z]{2})', line)
        if not m:
            continue
        assert (m.group(1) == '+') == (len(moves) % 2 == 0), ('turn', line)
        f0, r0, f1, r1 = (int(m.group(i)) for i in range(2, 6))
        kind = CSA_KIND[m.group(6)]
        if f0 == 0:
            moves.append((None, (f1, r1), kind, kind))
        else:
            moves.append(((f0, r0), (f1, r1), kind, None))
    # The final board the file prints as comments ('P1.. 'P9, 'P+, 'P-), to check the replay.
    final = {}
    for line in text.splitlines():
        m = re.match(r"^'P([1-9])(.*)$", line)
        if m:
            cells = m.group(2)
            for i in range(9):
                cell = cells[i * 3:i * 3 + 3]
                if cell.strip() not in ('*', ''):
                    final[(9 - i, int(m.group(1)))] = (0 if cell[0] == '+' else 1, CSA_KIND[cell[1:3]])
    return b, moves, final


def parse_kif_square(s):
    return (ZEN_DIGIT[s[0]], KAN_DIGIT[s[1]])


def read_kif(path):
    b = Board()
    lines = open(path, encoding='utf-8').read().splitlines()
    if any(l.startswith('+----') for l in lines):
        bd = [l for l in lines if l.startswith('|')]
        assert len(bd) == 9
        b.__init__()
        for r, l in enumerate(bd):
            cells = l[1:l.index('|', 1)]
            # each cell is 2 characters: ' X' for sente, 'vX' for gote, ' ・' for empty
            for i in range(9):
                cell = cells[i * 2:i * 2 + 2]
                if cell[1] == '・':
                    continue
                b.board[(9 - i, r + 1)] = (1 if cell[0] == 'v' else 0, KANJI_KIND[cell[1]])
        for l in lines:
            m = re.match(r'^(先手|後手)の持駒：(.*)$', l)
            if m:
                c = 0 if m.group(1) == '先手' else 1
                for item in m.group(2).split():
                    if item == 'なし':
                        continue
                    n = 1
                    if len(item) > 1:
                        n = '一二三四五六七八九十'.index(item[1]) + 1 if len(item) == 2 else 10 + (
                            '一二三四五六七八九'.index(item[2]) + 1)
                    b.hands[c][KANJI_KIND[item[0]]] += n
        b.side = 1 if '後手番' in lines else 0
    else:
        b.load_sfen(START)
    moves, last_to = [], None
    for l in lines:
        if l.startswith('変化'):
            break  # only the main line
        m = re.match(r'^\s*([0-9]+)\s+(同\s*\S+|\S+)', l)
        if not m:
            continue
        mv = m.group(2)
        if mv.startswith('同'):
            to, rest = last_to, mv[1:].lstrip('\u3000 ')
        else:
            to, rest = parse_kif_square(mv[:2]), mv[2:]
        frm = None
        pm = re.search(r'\((\d)(\d)\)$', rest)
        if pm:
            frm = (int(pm.group(1)), int(pm.group(2)))
            rest = rest[:pm.start()]
        if rest.endswith('打'):
            moves.append((None, to, None, KANJI_KIND[rest[:-1]]))
        else:
            promo = rest.endswith('成') and len(rest) >= 2 and rest[:-1] in KANJI_KIND and rest not in KANJI_KIND
            moves.append((frm, to, 'PROMO' if promo else 'KEEP', None))
        last_to = to
    return b, moves, None


def replay(b, moves):
    start_sfen = b.sfen()
    seen = {b.key(): [0]}
    usis, fourth = [], []
    b.boards = [dict(b.board)]
    for i, (frm, to, kind, drop) in enumerate(moves, 1):
        if frm is not None:
            pc = b.board[frm]
            if kind == 'PROMO':
                kind = '+' + pc[1]
            elif kind == 'KEEP':
                kind = pc[1]
        usis.append(b.move(frm, to, kind, drop))
        b.boards.append(dict(b.board))
        occ = seen.setdefault(b.key(), [])
        occ.append(i)
        if len(occ) == 4:
            fourth.append((i, occ[0]))
    return start_sfen, usis, fourth


# What each record's own project says about it (the expected answers of the TSV):
#   id, file, verdict after the last move, probe after the last move, where the answer comes from.
SERVER = 'shogi-server/shogi-server@86bf8135 test/csa, GPL-2.0-or-later'
TSSHOGI = 'sunfish-shogi/tsshogi@476aa00b src/tests/record.spec.ts, MIT'
EXPECT = [
    ('S1', 'fixtures/shogi-server/csa/oute_sennichite.csa', 'perpetual_sente', '-', SERVER,
     'TC_oute_sennichite.rb: #OUTE_SENNICHITE, sente #LOSE'),
    ('S2', 'fixtures/shogi-server/csa/oute_sennichite2.csa', 'perpetual_gote', '-', SERVER,
     'TC_oute_sennichite.rb: #OUTE_SENNICHITE, gote #LOSE'),
    ('S3', 'fixtures/shogi-server/csa/oute_sennichite3.csa', 'perpetual_sente', '-', SERVER,
     'TC_oute_sennichite.rb: #OUTE_SENNICHITE, sente #LOSE'),
    ('S4', 'fixtures/shogi-server/csa/not_sennichite.csa', 'none', '-', SERVER,
     'TC_not_sennichite.rb: no #DRAW (the 2008 summary line said sennichite; boards repeat, hands differ)'),
    ('S5', 'fixtures/shogi-server/csa/uchifuzume.csa', 'none', 'P*6d:pawn_drop_mate', SERVER,
     'TC_uchifuzume.rb: -0064FU after the record is #ILLEGAL_MOVE; summary: uchifuzume'),
    ('S6', 'fixtures/shogi-server/csa/not_uchifuzume.csa', 'none', 'P*9b:legal', SERVER,
     'TC_uchifuzume.rb: -0092FU after the record is no #ILLEGAL_MOVE'),
    ('S7', 'fixtures/shogi-server/csa/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa', 'none', '-',
     SERVER, 'ends with %TORYO (summary: toryo), no repetition ended it'),
    ('S8', 'fixtures/shogi-server/csa/jishogi_kachi.csa', 'none', 'impasse27:win', SERVER,
     'TC_jishogi_kachi.rb: gote %KACHI after the record gives #JISHOGI, gote #WIN (the 2006 summary said illegal kachi)'),
    ('S9', 'fixtures/shogi-server/csa/max_moves_draw.csa', 'none', '-', SERVER,
     'TC_max_moves_draw.rb: the game ends by #MAX_MOVES, not by a repetition'),
    ('T1', 'fixtures/tsshogi/extracted/repetition.kif', 'sennichite', '-', TSSHOGI,
     '"repetition": repetition at ply 49, no perpetual check; none at ply 48'),
    ('T2', 'fixtures/tsshogi/extracted/perpetualCheck_black.kif', 'perpetual_sente', '-', TSSHOGI,
     '"perpetualCheck/black": repetition and perpetualCheck BLACK at ply 17; none at 16'),
    ('T3', 'fixtures/tsshogi/extracted/perpetualCheck_white.kif', 'perpetual_gote', '-', TSSHOGI,
     '"perpetualCheck/white": repetition and perpetualCheck WHITE at ply 14; none at 13'),
]


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else '../shared/data'
    print('# repetition_cases.tsv - game records for tests/rules/test_repetition.c, written once by')
    print('# tests/data/make_repetition_cases.py from ../shared/data/fixtures (see its MANIFESTs).')
    print('# Only the move sequences of the games are reproduced here, as USI text; no file is copied.')
    print('# Sources and licences of the records: shogi-server/shogi-server test/csa (GPL-2.0-or-later; games')
    print('# played on the floodgate server), sunfish-shogi/tsshogi src/tests/record.spec.ts (MIT).')
    print('# Expected answers come from the records and their projects\' own tests (column "because"), not')
    print('# from kifucam. Columns:')
    print('#  id; verdict after the last move (none, sennichite, perpetual_sente = sente checked throughout')
    print('#  and loses, perpetual_gote); ply of the fourth occurrence (= the number of moves; 0 if none);')
    print('#  first = ply after which that position first occurred (counted by the converter\'s own replay);')
    print('#  probe after the last move (MOVE:why as rul_why_name, impasse27:verdict, or -); source file;')
    print('#  licence; because; the USI position line.')
    print('# id\tverdict\tply\tfirst\tprobe\tsource\tlicence\tbecause\tusi')
    for cid, rel, verdict, probe, lic, because in EXPECT:
        path = os.path.join(data, rel)
        b, moves, final = read_csa(path) if path.endswith('.csa') else read_kif(path)
        start, usis, fourth = replay(b, moves)
        if final:
            at = [i for i, bd in enumerate(b.boards) if bd == final]
            assert at, ('no board of the replay matches the closing diagram', path)
        if verdict == 'none':
            assert not fourth, (cid, 'the replay finds a fourth occurrence', fourth)
            ply, first = 0, 0
        else:
            # the record ends on its fourth occurrence, and no earlier position reached four
            assert len(fourth) == 1 and fourth[0][0] == len(usis), (cid, fourth, len(usis))
            ply, first = fourth[0]
        pos = 'position startpos' if start == START else 'position sfen ' + start
        line = pos + (' moves ' + ' '.join(usis) if usis else '')
        print('\t'.join([cid, verdict, str(ply), str(first), probe, rel, lic.split(', ')[-1],
                         lic.split(', ')[0] + ': ' + because, line]))


if __name__ == '__main__':
    main()

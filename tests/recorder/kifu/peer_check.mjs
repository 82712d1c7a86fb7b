// peer_check.mjs - a peer reads what kifucam writes: every game of the corpus is converted by
// `kifucam convert` to KIF, KI2, CSA and JKF, parsed by tsshogi (npm, pinned in package-lock.json), and
// must give the same moves and the same final position as kifucam's own replay.
// usage: node tests/recorder/kifu/peer_check.mjs KIFUCAM DATA_KIFU_DIR    (exit 1 on any disagreement)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importKIF, importKI2, importCSA, importJKFString, Record } from "tsshogi";

const [kifucam, dir] = process.argv.slice(2);
if (!kifucam || !dir) {
  console.error("usage: node peer_check.mjs KIFUCAM DATA_KIFU_DIR");
  process.exit(2);
}
const all = { kif: importKIF, ki2: importKI2, csa: importCSA, jkf: importJKFString };
// PEER_FORMATS="ki2 csa" checks only those; PEER_ONLY=substring checks only matching files
const readers = Object.fromEntries(Object.entries(all).filter(([f]) => !process.env.PEER_FORMATS || process.env.PEER_FORMATS.split(/\s+/).includes(f)));
const run = (args) => execFileSync(kifucam, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
// board, side and hands; the move number is left out
const pos4 = (sfen) => sfen.trim().replace(/^sfen /, "").split(/\s+/).slice(0, 3).join(" ");

const rows = readFileSync(join(dir, "kifu_validation.tsv"), "utf8").split("\n").filter(Boolean);
let checked = 0, ok = 0, skipped = 0, games = 0;
const failures = [];
for (const row of rows) {
  const [file, status] = row.split("\t");
  if (status !== "ok") { skipped++; continue; }
  if (process.env.PEER_ONLY && !file.includes(process.env.PEER_ONLY)) continue; // illegal moves: a peer rejects them, as it should
  const path = join(dir, file);
  games++;
  // kifucam ends its USI line with "resign" / "win" / "timeout" when the record ends so: not moves, not for a peer
  const usi = run(["convert", path, "-", "--to", "usi"]).trim().replace(/ (resign|win|timeout)$/, "").replace(/ moves$/, "");
  const moves = usi.includes(" moves ") ? usi.split(" moves ")[1].split(/\s+/) : [];
  // the position after kifucam's moves, as tsshogi plays them from kifucam's USI line
  const ref = Record.newByUSI(usi);
  if (ref instanceof Error) {
    failures.push(`${file}: tsshogi rejects kifucam's USI line: ${ref.message}`);
    continue;
  }
  ref.goto(Number.MAX_SAFE_INTEGER);
  const finalPos = pos4(ref.position.sfen);
  for (const fmt of Object.keys(readers)) {
    checked++;
    let why = "";
    try {
      const text = run(["convert", path, "-", "--to", fmt]);
      const rec = readers[fmt](text);
      if (rec instanceof Error) throw rec;
      const got = rec.moves.filter((n) => n.move && n.move.usi).map((n) => n.move.usi);
      rec.goto(Number.MAX_SAFE_INTEGER);
      if (got.join(" ") !== moves.join(" ")) {
        const i = got.findIndex((m, k) => m !== moves[k]);
        why = `moves differ at ${i + 1}: ${got[i]} vs ${moves[i]} (${got.length} vs ${moves.length})`;
      } else if (pos4(rec.position.sfen) !== finalPos) {
        why = `final position ${rec.position.sfen} vs ${ref.position.sfen}`;
      }
    } catch (e) {
      why = `tsshogi: ${e.message || e}`;
    }
    if (why) failures.push(`${file} as ${fmt}: ${why}`);
    else ok++;
  }
}
// who plays where (kifucam record --event ... --sente-name ...): the headers kifucam writes are the
// names tsshogi reads (CSA's $EVENT is tsshogi's title; the round and board are KIF/JKF custom keys)
const meta = { tournament: "第1回カメラ杯", place: "Tokyo, Sendagaya", blackName: "羽生善治", whiteName: "Fujii Sota" };
const tmp = mkdtempSync(join(tmpdir(), "kifucam-peer-"));
writeFileSync(join(tmp, "meta.kifu"), `棋戦：${meta.tournament}\n場所：${meta.place}\n回戦：3\n盤番号：12\n` +
  `先手：${meta.blackName}\n後手：${meta.whiteName}\n手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 投了\n`);
for (const fmt of Object.keys(readers)) {
  checked++;
  const rec = readers[fmt](run(["convert", join(tmp, "meta.kifu"), "-", "--to", fmt]));
  const m = rec instanceof Error ? null : rec.metadata;
  const want = { ...meta, ...(fmt === "csa" ? { tournament: undefined, title: meta.tournament } : {}) };
  const bad = !m ? [rec.message] : Object.entries(want).filter(([k, v]) => v !== undefined && m.getStandardMetadata(k) !== v)
    .map(([k, v]) => `${k} '${m.getStandardMetadata(k)}' not '${v}'`);
  if (m && fmt !== "csa" && (m.getCustomMetadata("回戦") !== "3" || m.getCustomMetadata("盤番号") !== "12"))
    bad.push(`回戦/盤番号 '${m.getCustomMetadata("回戦")}'/'${m.getCustomMetadata("盤番号")}'`);
  if (bad.length) failures.push(`metadata as ${fmt}: ${bad.join(", ")}`);
  else ok++;
}
rmSync(tmp, { recursive: true });
for (const f of failures.slice(0, 40)) console.log("  " + f);
console.log(`tsshogi peer check: ${games} games x ${Object.keys(readers).length} formats: ${ok}/${checked} read back ` +
  `with the same moves and final position (${skipped} games with an illegal move or sloppy input skipped)`);
process.exit(failures.length ? 1 : 0);

# Makefile - builds kifucam, its tests and benchmarks. See README.md: `make run`, `make test`.
# Each module folder (rules/ capture/ vision/ recorder/) becomes a static library from its *.c files;
# recorder/cli/ is the kifucam program: main.c and libcli.a (the commands, also linked by the tests).
# tests/ holds one CUnit runner for all suites.

CC      ?= gcc
CXX     ?= g++
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build

WARN     = -Wall -Wextra -Wpedantic -Werror
CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L
OPT     ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) -I. $(EXTRA_CFLAGS)
LDFLAGS_ALL = $(EXTRA_LDFLAGS)
# capture/ decodes with libjpeg-turbo (TurboJPEG API), reads EXIF with libexif, video with FFmpeg's libs.
CAPTURE_PKGS = libturbojpeg libexif libavformat libavcodec libswscale libavutil
CAPTURE_LIBS = $(shell pkg-config --libs $(CAPTURE_PKGS) 2>/dev/null || \
                 echo -lturbojpeg -lexif -lavformat -lavcodec -lswscale -lavutil)
# vision/ uses OpenCV 4.6 (imgproc, dnn, imgcodecs) through its one C++ file, vision/cvseam.cpp.
OPENCV_CFLAGS = $(shell pkg-config --cflags opencv4 2>/dev/null || echo -I/usr/include/opencv4)
OPENCV_LIBS   = -lopencv_dnn -lopencv_imgcodecs -lopencv_imgproc -lopencv_core
CXXFLAGS_ALL  = -std=c++17 -Wall -Wextra -Werror $(OPT) -I. $(OPENCV_CFLAGS) $(EXTRA_CFLAGS)
# recorder/kifu/kifu_jkf.c reads and writes JSON with jansson.
# recorder/output/live.c serves the live feed with libmicrohttpd (its own threads: -pthread).
# recorder/hall/ publishes to and reads from an MQTT broker with libmosquitto (docs/hall.md).
LDLIBS_ALL = $(OPENCV_LIBS) -lstdc++ $(CAPTURE_LIBS) -ljansson -lmicrohttpd -lmosquitto -pthread -lm

# Debian 12 packages the build, tests and benchmarks need (installed by `make deps` when root).
DEB_PKGS = build-essential pkg-config libcunit1-dev fairy-stockfish \
           libturbojpeg0-dev libexif-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev \
           ffmpeg python3-opencv libopencv-dev qemu-system-x86 busybox-static cpio kmod libjansson-dev nodejs clang \
           clang-format \
           libmicrohttpd-dev libmosquitto-dev mosquitto chromium

RULES_SRC    = $(wildcard rules/*.c)
# recorder/ in rooms, each a library; the arrows run cli -> record -> hall -> output -> tracker -> kifu -> rules.
RKIFU_SRC    = $(wildcard recorder/kifu/*.c)
RTRACKER_SRC = $(wildcard recorder/tracker/*.c)
ROUTPUT_SRC  = $(wildcard recorder/output/*.c)
RHALL_SRC    = $(wildcard recorder/hall/*.c)
RRECORD_SRC  = $(wildcard recorder/record/*.c)
CLI_SRC      = $(wildcard recorder/cli/*.c)
CAPTURE_SRC  = $(wildcard capture/*.c)
VISION_SRC   = $(wildcard vision/*.c)
VISION_CXX   = $(wildcard vision/*.cpp)
# tests/v4l2shim/ and tests/v4l2vm/ hold the fake camera (a shared object) and cap-grab (a program)
# with its camera-only stubs: not test suites.
TEST_SRC     = $(filter-out tests/v4l2shim/% tests/v4l2vm/% tests/fuzz/%,$(wildcard tests/*.c tests/*/*.c tests/*/*/*.c))
BENCH_SRC    = $(wildcard bench/*.c)

RULES_OBJ    = $(RULES_SRC:%.c=$(BUILD)/%.o)
RKIFU_OBJ    = $(RKIFU_SRC:%.c=$(BUILD)/%.o)
RTRACKER_OBJ = $(RTRACKER_SRC:%.c=$(BUILD)/%.o)
ROUTPUT_OBJ  = $(ROUTPUT_SRC:%.c=$(BUILD)/%.o)
RHALL_OBJ    = $(RHALL_SRC:%.c=$(BUILD)/%.o)
RRECORD_OBJ  = $(RRECORD_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ      = $(CLI_SRC:%.c=$(BUILD)/%.o)
# the commands (all of recorder/cli/ but main.c) are a library too, so that the tests link them
CLILIB_OBJ   = $(filter-out $(BUILD)/recorder/cli/main.o,$(CLI_OBJ))
CAPTURE_OBJ  = $(CAPTURE_SRC:%.c=$(BUILD)/%.o)
VISION_OBJ   = $(VISION_SRC:%.c=$(BUILD)/%.o) $(VISION_CXX:%.cpp=$(BUILD)/%.o)
TEST_OBJ     = $(TEST_SRC:%.c=$(BUILD)/%.o)
# In link order: a library comes before the ones it uses.
RECORDER_LIBS = $(BUILD)/librec_record.a $(BUILD)/librec_hall.a $(BUILD)/librec_output.a $(BUILD)/librec_tracker.a $(BUILD)/librec_kifu.a
LIBS         = $(RECORDER_LIBS) $(BUILD)/libvision.a $(BUILD)/libcapture.a $(BUILD)/librules.a

KIFUCAM = $(BUILD)/kifucam
TESTBIN = $(BUILD)/kifucam-tests
CAPGRAB = $(BUILD)/cap-grab
V4L2SHIM = $(BUILD)/libv4l2shim.so

.PHONY: bench-boards bench-hall test-hall-faults fuzz-hall hall-demo bench-review eval-matrix deps-render format-check deps-graph all test run eval eval-games bench bench-vision sanitize install clean deps check-deps test-v4l2 peer-check fuzz fuzz-regress soak

all: $(KIFUCAM) $(TESTBIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# The one C++ file (the OpenCV seam); its header is pure C.
$(BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/libvision.a: $(VISION_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librules.a: $(RULES_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librec_kifu.a: $(RKIFU_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librec_tracker.a: $(RTRACKER_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librec_output.a: $(ROUTPUT_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librec_hall.a: $(RHALL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librec_record.a: $(RRECORD_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcli.a: $(CLILIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcapture.a: $(CAPTURE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The fake camera is preloaded into cap-grab by the capture tests; it is built without sanitizers.
$(V4L2SHIM): tests/v4l2shim/shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -fPIC -shared -o $@ $< -ldl -lturbojpeg

$(CAPGRAB): $(BUILD)/tests/v4l2shim/capgrab.o $(BUILD)/libcapture.a
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcapture.a $(LDLIBS_ALL)

# cap-grab for the qemu guest of test-v4l2: cameras only, linked statically.
$(BUILD)/cap-grab-static: $(BUILD)/tests/v4l2shim/capgrab.o $(BUILD)/tests/v4l2vm/stubs.o $(BUILD)/libcapture.a
	$(CC) -static -o $@ $(BUILD)/tests/v4l2shim/capgrab.o $(BUILD)/tests/v4l2vm/stubs.o \
	  $(BUILD)/libcapture.a -l:libturbojpeg.a -lm

# Boots a Debian kernel under qemu (TCG) with the vivid virtual camera and grabs frames from it
# with kifucam's capture code in several sizes and rates. Needs root for apt-get download only.
test-v4l2: deps
	$(MAKE) $(BUILD)/cap-grab-static
	sh scripts/test-v4l2.sh $(BUILD)

$(KIFUCAM): $(BUILD)/recorder/cli/main.o $(BUILD)/libcli.a $(LIBS)
	$(CC) $(LDFLAGS_ALL) -o $@ $(BUILD)/recorder/cli/main.o $(BUILD)/libcli.a $(LIBS) $(LDLIBS_ALL)

$(TESTBIN): $(TEST_OBJ) $(BUILD)/libcli.a $(LIBS) $(CAPGRAB) $(V4L2SHIM)
	$(CC) $(LDFLAGS_ALL) -o $@ $(TEST_OBJ) $(BUILD)/libcli.a $(LIBS) -lcunit $(LDLIBS_ALL)

$(BUILD)/bench-perft: $(BUILD)/bench/bench_perft.o $(LIBS)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)

# The hall under load (bench/bench_hall.sh, docs/hall.md): HALL_BOARDS simulated boards replaying 120
# moves each at game speed through the real publisher to a local mosquitto, `kifucam hall`, and
# HALL_CLIENTS server-sent-event clients for HALL_MINUTES; a table of delays and the hall's memory.
# HALL_ROUNDS: rounds one after another (HALL_MINUTES each, each board a new recording); over 1, the
# hall's memory at the end of each round too.
HALL_BOARDS  ?= 200
HALL_CLIENTS ?= 500
HALL_MINUTES ?= 5
HALL_ROUNDS  ?= 1
$(BUILD)/bench-hall: $(BUILD)/bench/bench_hall.o $(LIBS)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
# How many cameras one computer records at 10 fps (bench/bench_boards.sh): K recorders of the 720p
# sample clip at camera speed for each K of BOARDS_K. Not part of make bench (a few minutes a K).
BOARDS_K ?= 1 2 3 4 5 6
bench-boards: deps $(KIFUCAM)
	sh bench/bench_boards.sh $(BUILD) "$(BOARDS_K)"
bench-hall: deps $(KIFUCAM) $(BUILD)/bench-hall
	sh bench/bench_hall.sh $(BUILD) $(HALL_BOARDS) $(HALL_CLIENTS) $(HALL_MINUTES) $(HALL_ROUNDS)

# A 300-move review.html opened in headless Chromium (bench/bench_review.sh).
$(BUILD)/bench-review: $(BUILD)/bench/bench_review.o $(LIBS)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)

bench-review: $(KIFUCAM) $(BUILD)/bench-review
	sh bench/bench_review.sh $(BUILD)

# The renderer of the evaluation clips (models/render/) needs PIL, the CJK fonts the piece faces are
# drawn in, and rsvg-convert for the piece artwork: the list of models/Makefile without torch and onnx.
RENDER_DEB_PKGS = $(filter-out python3-torch python3-onnx,$(shell sed -n '/^TRAIN_DEB_PKGS/,/^$$/p' models/Makefile | \
                    tr -d '\\' | sed 's/TRAIN_DEB_PKGS *=//')) librsvg2-bin
deps-render:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(RENDER_DEB_PKGS)"

# deps: install what is missing (root), or print the apt-get line to run.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" = 0 ]; then echo "deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	else echo "deps: missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi

test: deps
	$(MAKE) $(TESTBIN) $(KIFUCAM)
	@$(MAKE) --no-print-directory format-check deps-graph
	$(TESTBIN)
	@$(MAKE) --no-print-directory test-hall-faults
	@$(MAKE) --no-print-directory fuzz-regress
	@$(MAKE) --no-print-directory peer-check

# A peer reads what we write: tsshogi (npm, pinned in package-lock.json, installed by `npm ci` when
# node_modules is missing) parses our KIF/KI2/CSA/JKF of every corpus game (tests/recorder/kifu/peer_check.mjs).
peer-check: $(KIFUCAM)
	@if [ ! -d ../shared/data/kifu ]; then echo "skipped: ../shared/data not found (tsshogi peer check)"; \
	elif ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  echo "peer-check: skipped: node/npm not installed"; \
	elif [ ! -d node_modules/tsshogi ] && ! npm ci --no-audit --no-fund >/dev/null 2>&1; then \
	  echo "peer-check: skipped: npm ci failed (no registry?)"; \
	else echo "peer-check: tsshogi reads back our KIF, KI2, CSA and JKF of every corpus game (a few minutes)"; \
	  node tests/recorder/kifu/peer_check.mjs $(KIFUCAM) ../shared/data/kifu; fi

# Fuzzing (tests/fuzz/, docs/development.md): one libFuzzer target for every parser of outside input,
# tests/fuzz/fuzz_NAME.c, with its seed inputs in tests/fuzz/seeds/NAME/ and every input that ever made
# it fail in tests/fuzz/regress/NAME/. All is built by clang in $(FUZZ_BUILD) with ASan+UBSan and the
# fuzzer's coverage hooks; the same objects link with libFuzzer (make fuzz) or with
# tests/fuzz/replay_main.c, which runs saved inputs once each (make fuzz-regress, part of make test).
FUZZ_TARGETS ?= kifu position commands resume live jpeg hall
FUZZ_BUILD   = build-fuzz
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_MAKE    = $(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang CXX=clang++ OPT="-O1 -g" \
               EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN) -Wno-error=sign-compare" \
               EXTRA_LDFLAGS="$(FUZZ_SAN)"
FUZZ_LIBS    = $(RECORDER_LIBS) $(BUILD)/libcapture.a $(BUILD)/librules.a
FUZZ_LDLIBS  = $(CAPTURE_LIBS) -ljansson -lmicrohttpd -lmosquitto -pthread -lm
FUZZ_ENV     = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
FUZZ_SECONDS ?= 60
.SECONDARY: $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/fuzz_%.o) $(BUILD)/tests/fuzz/replay_main.o

$(BUILD)/fuzz-replay/%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay_main.o $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/tests/fuzz/replay_main.o $(FUZZ_LIBS) $(FUZZ_LDLIBS)

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(FUZZ_LDLIBS)

# Every seed and regression input once through its target: a crash, a leak or undefined behaviour fails.
fuzz-regress:
	@$(FUZZ_MAKE) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-replay/%)
	@for t in $(FUZZ_TARGETS); do \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz-replay/$$t $$(ls -d tests/fuzz/seeds/$$t tests/fuzz/regress/$$t 2>/dev/null) || \
	  { echo "fuzz-regress: $$t failed on an input above (tests/fuzz/regress/$$t, seeds/$$t)"; exit 1; }; done

# Each target (FUZZ_TARGETS) under libFuzzer for FUZZ_SECONDS, from its seeds and the corpus it grew
# before ($(FUZZ_BUILD)/corpus/NAME/); a crash leaves its input in $(FUZZ_BUILD)/crashes/NAME/ (keep it in
# tests/fuzz/regress/NAME/ with the fix) and fails: scripts/fuzz-run.sh.
fuzz:
	@$(FUZZ_MAKE) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/%)
	sh scripts/fuzz-run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# A tournament day as fast as it runs (samples/soak.py, not in CI): the test clip looped as a 30 fps
# camera for SOAK_CAMERA_HOURS with faults in turn (damaged frames, a 30 s blackout, the disk full for a
# minute, kill -9 and --resume); prints RSS, open files and threads, and moves right / wrong / missing.
SOAK_CAMERA_HOURS ?= 8
soak: deps $(KIFUCAM)
	SOAK_CAMERA_HOURS=$(SOAK_CAMERA_HOURS) /usr/bin/python3 samples/soak.py $(BUILD)

# libFuzzer on the hall's message, URL and board-id parsers alone (tests/fuzz/fuzz_hall.c).
fuzz-hall:
	@$(MAKE) --no-print-directory fuzz FUZZ_TARGETS=hall

# The tests again, built with AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	$(MAKE) BUILD=build-san OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -DRUL_DEBUG" \
	  EXTRA_LDFLAGS="-fsanitize=address,undefined" build-san/kifucam-tests build-san/kifucam
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-san/kifucam-tests

SAMPLE = samples/sample-game.usi
# The sample clip: the first 80 moves of that game rendered by samples/make_clip.py (held-out style);
# CLIP=other.mp4 records another clip (its moves in other.usi).
CLIP = samples/sample-clip.mp4
run: deps $(KIFUCAM)
	@echo "== kifucam replay $(SAMPLE)"
	$(KIFUCAM) replay $(SAMPLE)
	@echo "== kifucam record --source $(CLIP)"
	@rm -rf $(BUILD)/run-record
	$(KIFUCAM) record --source $(CLIP) --out $(BUILD)/run-record </dev/null
	@echo "== the kifu it wrote ($(BUILD)/run-record/game.kif, shown in UTF-8)"
	@if [ -f $(BUILD)/run-record/game.kif ]; then $(KIFUCAM) convert $(BUILD)/run-record/game.kif - --to kif; \
	else echo "(none: no game was started; the summary line above, $(BUILD)/run-record/events.jsonl (setup_error) and source.jsonl (board_found) say why)"; fi
	@echo "== moves found vs the game's own moves"
	python3 samples/compare_moves.py $(CLIP:.mp4=.usi) $(BUILD)/run-record

# The hall's fault tests (tests/recorder/hall/hall_faults.py, about 2 min): a real mosquitto, `kifucam
# hall` and recorders of the sample clip; the broker, the hall and a recorder killed -9 and started
# again, a 30 s stall; every move once on the hall and in the round's files. HALL_FAULTS=faults: the
# kills only (90 s).
HALL_FAULTS ?= faults stall
test-hall-faults: $(KIFUCAM)
	@python3 tests/recorder/hall/hall_faults.py $(KIFUCAM) $(HALL_FAULTS); rc=$$?; \
	  if [ $$rc = 77 ]; then echo "test-hall-faults: skipped"; elif [ $$rc != 0 ]; then exit 1; fi

# A tournament hall on this computer (docs/hall.md): a local mosquitto, `kifucam hall` on HALL_PORT
# (default 8090) and 8 recorders of the shipped clips (boards 1..8, contrib/pairings-example.csv);
# screenshots in $(BUILD)/hall-demo/ with chromium; HALL_DEMO_KEEP=1 keeps serving until Ctrl-C.
hall-demo: deps $(KIFUCAM)
	sh scripts/hall-demo.sh $(BUILD)

# Clips of real games (../shared/data/kifu) rendered in the held-out style, recorded, one row a game
# (moves right / total, wrong, uncertain, ending expected vs found), then the fault rows; see
# samples/eval_games.py. EVAL_PLIES=N (default 60) limits ordinary games; EVAL_END_PLIES=N (default 40)
# renders the last N moves of games whose ending matters (0: whole); EVAL_GAMES="a.kif b.csa" picks the
# games; EVAL_HELD_OUT=0 uses the training styles; EVAL_FAULTS="corrupt blackout gap kill" (or "")
# and EVAL_FAULT_GAME=FILE, EVAL_BLACKOUT_MOVES=N (default 2), EVAL_FAULT_HELD_OUT=1 set the faults.
eval-games: deps deps-render $(KIFUCAM)
	/usr/bin/python3 samples/eval_games.py $(BUILD)

# The recorder from every camera placement of the design (overhead; 20, 30, 45 degrees at either end
# and either side), the board a third of the frame to full, seen and held-out looks, warm and cold
# light; a tuned part and an untuned part reported apart (samples/eval_matrix.py, EVAL_MATRIX_*).
eval-matrix: deps deps-render $(KIFUCAM)
	/usr/bin/python3 samples/eval_matrix.py $(BUILD)

# Issue 5's vision table (models/eval.py): the real photos through `kifucam recognize`, the na-o-ys
# piece crops, and EVAL_BOARDS boards rendered in the held-out style (cached in $(BUILD)/eval-rendered/).
EVAL_BOARDS ?= 1000
eval: deps deps-render $(KIFUCAM)
	nice -n 10 /usr/bin/python3 models/eval.py --kifucam $(KIFUCAM) --boards $(EVAL_BOARDS) --cache $(BUILD)/eval-rendered

$(BUILD)/bench-capture: $(BUILD)/bench/bench_capture.o $(BUILD)/libcapture.a
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcapture.a $(LDLIBS_ALL)

$(BUILD)/bench-vision: $(BUILD)/bench/bench_vision.o $(BUILD)/libvision.a $(BUILD)/libcapture.a
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libvision.a $(BUILD)/libcapture.a $(LDLIBS_ALL)

bench: deps $(KIFUCAM) $(BUILD)/bench-perft $(BUILD)/bench-capture
	sh bench/bench.sh $(BUILD)
	sh bench/bench_capture.sh $(BUILD)
	sh bench/bench_record.sh $(BUILD)
	@$(MAKE) --no-print-directory bench-hall
	@$(MAKE) --no-print-directory bench-vision

# Vision alone (bench/bench_vision.c), pinned to one core: stability test, 81-square read batched and
# naive, komadai timed on a frame of the sample clip whose stands hold pieces (4 s before its end).
$(BUILD)/bench-komadai.png: samples/sample-clip.mp4
	ffmpeg -loglevel error -y -sseof -4 -i $< -frames:v 1 $@

bench-vision: deps $(BUILD)/bench-vision $(BUILD)/bench-komadai.png
	@if [ -f ../shared/data/photos/hash451722/sample_board.jpg ]; then \
	  OMP_NUM_THREADS=1 taskset -c 0 $(BUILD)/bench-vision ../shared/data/photos/hash451722/sample_board.jpg \
	    models/squares.onnx $(BUILD)/bench-komadai.png; \
	else echo "skipped: ../shared/data not found (vision bench)"; fi

install: $(KIFUCAM)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(KIFUCAM) $(DESTDIR)$(PREFIX)/bin/kifucam
	install -d $(DESTDIR)$(PREFIX)/share/kifucam
	install -m 644 models/squares.onnx $(DESTDIR)$(PREFIX)/share/kifucam/squares.onnx
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/kifucam.1 $(DESTDIR)$(PREFIX)/share/man/man1/kifucam.1

clean:
	rm -rf build build-san $(FUZZ_BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Every C file as .clang-format pins it (clang-format 14, Debian's clang-format package).
format-check:
	@command -v clang-format >/dev/null 2>&1 || { echo "format-check: clang-format not installed"; exit 1; }
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null || \
	  find rules capture vision recorder tests bench -name '*.[ch]' -o -name '*.cpp')
	@echo "format-check: every C file follows .clang-format"

# The module dependency graph from the static libraries' symbols; fails on an arrow that runs back
# (rules -> anything, vision -> recorder, tracker -> output ...): scripts/deps-graph.sh.
deps-graph: $(LIBS) $(BUILD)/libcli.a
	sh scripts/deps-graph.sh $(BUILD)
	@sh scripts/deps-graph-selftest.sh

#!/usr/bin/env bash
# The real-GPU check in one command: builds d2tsim and the GPU tests, runs the GPU-vs-CPU tests
# (test_gpu) and the GPU backend of the benchmark suite headless on EGL's device platform (the
# GPU's own, no display needed) at 64^2-256^2 and 512^2, and writes bench/results/<machine>-gpu/
# (summary.md with every pass's GL timer figure and where a GPU step goes). About 4 minutes on
# an NVIDIA H200 with the build already made. Figures only: nothing passes or fails on speed.
#   bench/gpu_check.sh                  install what is missing (Debian), build, test, bench
#   bench/gpu_check.sh --quick          small set (64^2, two scenes): keeps it working on llvmpipe
#   bench/gpu_check.sh --no-build       use build/ as it is (a machine without the -dev packages)
#   bench/gpu_check.sh --pack DIR       build here, then copy d2tsim, test_gpu and the shared
#                                       libraries they need (glibc aside) into DIR with DIR/run.sh,
#                                       which runs this check with --no-build on a machine that has
#                                       an NVIDIA driver but none of the Debian packages
# Options: --machine NAME (default: the GPU's name), --repeats N (GPU runs per configuration,
# default 1), --no-512. Run from anywhere; the results land in the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0 build=1 pack="" machine="" repeats=1 big=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --pack) pack="$2"; shift ;;
    --machine) machine="$2"; shift ;;
    --repeats) repeats="$2"; shift ;;
    --no-512) big=0 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "gpu_check: unknown option '$1' (see --help)"; exit 2 ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  source scripts/deps.sh
  d2t_install_deps
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" --target d2tsim test_gpu
fi
for f in build/d2tsim build/test_gpu; do
  [ -x "$f" ] || { echo "gpu_check: $f is missing: build first (drop --no-build)"; exit 1; }
done

if [ -n "$pack" ]; then
  # Everything the two programs load except glibc: the machine that runs them may have an
  # NVIDIA driver and nothing else. The GL loaders (glvnd) go apart: run.sh uses them only
  # when the machine has none, so a driver's own glvnd is never shadowed.
  mkdir -p "$pack/bin" "$pack/lib" "$pack/glvnd"
  cp build/d2tsim build/test_gpu "$pack/bin/"
  for f in $(ldd build/d2tsim build/test_gpu | awk '/=> \//{print $3}' | sort -u); do
    case "$(basename "$f")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
      libEGL.so*|libOpenGL.so*|libGL.so*|libGLdispatch.so*|libGLX.so*) cp -L "$f" "$pack/glvnd/" ;;
      *) cp -L "$f" "$pack/lib/" ;;
    esac
  done
  cat > "$pack/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs bench/gpu_check.sh --no-build with the packed programs; call it from the checkout's root
# with the same arguments as gpu_check.sh (e.g. DIR/run.sh --machine h100).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p build && cp "$here/bin/d2tsim" "$here/bin/test_gpu" build/
lib="$here/lib"
if ! ldconfig -p 2>/dev/null | grep -q 'libEGL.so.1 '; then lib="$lib:$here/glvnd"; fi
# NVIDIA's EGL vendor library, wherever the driver put it (mounted or installed)
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
  if ls "$d"/libEGL_nvidia.so* >/dev/null 2>&1; then lib="$lib:$d"; fi
done
vj=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$vj" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES="$vj"; fi
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec bench/gpu_check.sh --no-build "$@"
EOF
  chmod +x "$pack/run.sh"
  echo "gpu_check: packed into $pack ($(du -sh "$pack" | cut -f1)); on the GPU machine: $pack/run.sh"
  exit 0
fi

# The built-in paths (shaders, scenes) are the build's source tree: run from a copy elsewhere
# by pointing the shaders here.
export D2T_SHADER_DIR="$PWD/shaders" D2T_SCENE_DIR="$PWD/scenes"
unset OMP_WAIT_POLICY
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
build/d2tsim scenes/ball_drop.json --headless --backend gpu --resolution 32 --frames 2 \
  --metrics "$probe/m.json" >/dev/null 2>"$probe/err" || { cat "$probe/err"; exit 1; }
renderer=$(python3 -c "import json,sys;m=json.load(open(sys.argv[1]));print(m.get('renderer','?'))" "$probe/m.json")
ran=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1])).get('backend','?'))" "$probe/m.json")
echo "gpu_check: GL renderer: $renderer (backend that ran: $ran)"
if echo "$renderer" | grep -qiE 'llvmpipe|softpipe|swrast'; then
  echo "gpu_check: a software rasterizer: the figures say nothing about a GPU"
  [ "$quick" = 1 ] || echo "gpu_check: (no GPU device found by EGL: use --quick here)"
fi
if [ -z "$machine" ]; then
  machine=$( (command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | head -1) \
             || echo "$renderer" | cut -d/ -f1 | cut -d"(" -f1)
  machine=$(echo "$machine" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-' | sed 's/-\+/-/g; s/^-//; s/-$//')
fi

echo "gpu_check: GPU-vs-CPU tests (test_gpu)"
build/test_gpu --gtest_brief=1 2>&1 | tail -3

export D2T_BENCH_COMMAND="bench/gpu_check.sh"
if [ "$quick" = 1 ]; then
  python3 bench/suite.py --build build --machine "$machine-gpu" --backends gpu --scenes "ball_drop peer_ball_drop" \
    --gpu-resolutions 64 --gpu-warmup 3 --gpu-steps 5 --gpu-repeats 1 --no-scaling --no-peer
else
  python3 bench/suite.py --build build --machine "$machine-gpu" --backends gpu --gpu-resolutions "64 128 256" \
    --gpu-repeats "$repeats" --no-scaling
  if [ "$big" = 1 ]; then
    python3 bench/suite.py --build build --machine "$machine-gpu-512" --backends gpu \
      --scenes "ball_drop head_drop" --gpu-resolutions 512 --gpu-repeats "$repeats" --no-scaling --no-peer
  fi
fi
rm -rf bench/results/"$machine"-gpu*/raw
echo "gpu_check: wrote bench/results/$machine-gpu*/summary.md"

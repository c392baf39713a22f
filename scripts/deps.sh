# Installs the Debian packages d2tsim needs, only those missing (sourced by run.sh and test.sh).
D2T_PACKAGES=(
  build-essential cmake pkg-config
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri   # OpenGL + EGL (Mesa: headless llvmpipe)
  libglfw3-dev libglew-dev                            # window, GL loader
  libeigen3-dev                                       # linear algebra
  libsuitesparse-dev                                  # CHOLMOD: the direct solver of Mt_e
  libccd-dev                                          # GJK intersection (stage 1's pruning)
  libspectra-dev                                      # sparse eigenproblems (the morph targets' modes)
  libimgui-dev                                        # Dear ImGui (+ GLFW/OpenGL3 backends)
  libtinyobjloader-dev nlohmann-json3-dev libcli11-dev libstb-dev
  libgtest-dev                                        # tests (ctest)
)
# only for ./test.sh: other people's OBJ models (a 3-D import library's test set, issue 33)
D2T_TEST_PACKAGES=(assimp-testmodels)

# d2t_install_deps [test]: the build's packages (and with "test", the tests' too)
d2t_install_deps() {
  local missing=() wanted=("${D2T_PACKAGES[@]}")
  if [ "${1:-}" = "test" ]; then wanted+=("${D2T_TEST_PACKAGES[@]}"); fi
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  echo "d2tsim: installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

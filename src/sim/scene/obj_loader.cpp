#include "sim/scene/obj_loader.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "sim/base/json_reader.h"

namespace d2t {

namespace {

/// A syntax pass over the `v` and `f` lines, which tinyobjloader reads
/// leniently (it takes "v 1 abc 2" for (1, 0, 2)). Returns the vertex
/// positions in double precision, in file order, and in `kept` the text for
/// tinyobjloader: the `v` and `f` lines, every other line emptied (same line
/// numbers). d2tsim reads nothing else, and tinyobjloader parses some other
/// statements unsafely ("vw 1e99" overflows an int).
std::vector<Vec3> scanObj(const std::string& path, const std::string& text, std::string* kept) {
  std::vector<Vec3> vertices;
  // (line, largest positive vertex index) of the face with the largest index
  int worstLine = 0;
  long worstIndex = 0;
  size_t pos = 0;
  for (int lineNo = 1; pos < text.size(); ++lineNo) {
    // a line ends at "\n", "\r\n" or a lone "\r", as tinyobjloader splits them
    const size_t end = std::min(text.find_first_of("\r\n", pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    std::istringstream tokens(line);
    std::string key;
    tokens >> key;
    kept->append(key == "v" || key == "f" ? line : std::string()).push_back('\n');
    if (key.empty()) continue;
    auto fail = [&](const std::string& what) {
      throw InputError(path + ":" + std::to_string(lineNo) + ": parse error: " + what);
    };
    if (key == "v") {
      Vec3 p;
      std::string tok;
      for (int k = 0; k < 3; ++k) {
        if (!(tokens >> tok)) fail("expected 3 numbers after 'v', got \"" + line + "\"");
        char* end = nullptr;
        p[k] = std::strtod(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0' || !std::isfinite(p[k]))
          fail("expected a number, got \"" + tok + "\" in \"" + line + "\"");
      }
      vertices.push_back(p);
    } else if (key == "f") {
      std::string tok;
      int corners = 0;
      while (tokens >> tok) {
        // i, i/j, i//k or i/j/k: the vertex index is the part before the first '/'
        const std::string head = tok.substr(0, tok.find('/'));
        char* end = nullptr;
        errno = 0;
        const long idx = std::strtol(head.c_str(), &end, 10);
        if (head.empty() || *end != '\0' || idx == 0)
          fail("expected a non-zero vertex index, got \"" + tok + "\" in \"" + line + "\"");
        if (errno == ERANGE)
          throw InputError(path + ":" + std::to_string(lineNo) + ": vertex index out of range: " +
                           head + " (beyond a 64-bit integer)");
        if (idx < 0 && idx < -static_cast<long>(vertices.size()))
          throw InputError(path + ":" + std::to_string(lineNo) + ": vertex index out of range: " +
                           std::to_string(idx) + " with " + std::to_string(vertices.size()) +
                           " vertices defined before it");
        if (idx > worstIndex) {
          worstIndex = idx;
          worstLine = lineNo;
        }
        ++corners;
      }
      if (corners < 3) fail("a face needs at least 3 vertices, got \"" + line + "\"");
    }
  }
  if (worstIndex > static_cast<long>(vertices.size()))
    throw InputError(path + ":" + std::to_string(worstLine) + ": vertex index out of range: " +
                     std::to_string(worstIndex) + " (the file has " +
                     std::to_string(vertices.size()) + " vertices)");
  return vertices;
}

/// "PATH:LINE: parse error: MESSAGE" from a tinyobjloader message that names a line.
std::string tinyObjMessage(const std::string& path, const std::string& text) {
  std::string msg = text;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  const auto nl = msg.find('\n');
  if (nl != std::string::npos) msg = msg.substr(0, nl);
  std::smatch m;
  if (std::regex_search(msg, m, std::regex("line:? ([0-9]+)")))
    return path + ":" + m[1].str() + ": parse error: " + msg;
  return path + ": parse error: " + msg;
}

}  // namespace

void writeObj(const TriMesh& mesh, const std::string& path, const std::string& comment) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot write");
  f << "# " << comment << "\n" << std::setprecision(9);
  for (const Vec3& p : mesh.positions) f << "v " << p.x() << " " << p.y() << " " << p.z() << "\n";
  for (const Vec3i& t : mesh.triangles) f << "f " << t[0] + 1 << " " << t[1] + 1 << " " << t[2] + 1 << "\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

TriMesh loadObjSoup(const std::string& path) {
  // a directory, device or FIFO is no mesh (and reading /dev/zero would never end)
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path + ": not a regular file, expected an OBJ file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string vfLines;
  const std::vector<Vec3> scanned = scanObj(path, text, &vfLines);

  // parsed from memory, the v and f lines only: d2tsim uses no materials, and
  // ParseFromFile would open whatever file a "mtllib" line names (a device or a
  // FIFO there hangs the load)
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(vfLines, /*mtl_text=*/"", config))
    throw InputError(tinyObjMessage(path, reader.Error().empty() ? "unreadable file" : reader.Error()));

  // positions: the double-precision values of the syntax pass (tinyobjloader keeps floats)
  const std::vector<tinyobj::real_t>& v = reader.GetAttrib().vertices;
  const int nv = static_cast<int>(v.size() / 3);
  TriMesh mesh;
  if (static_cast<int>(scanned.size()) == nv) {
    mesh.positions = scanned;
  } else {
    for (int i = 0; i < nv; ++i) mesh.positions.emplace_back(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  }
  // bounds, volume and welding square and cube the coordinates: keep them far from overflow
  // (tinyobjloader's floats also turn values beyond 3.4e38 into inf)
  constexpr double kMaxCoordinate = 1e12;
  for (size_t i = 0; i < mesh.positions.size(); ++i)
    if (!(mesh.positions[i].cwiseAbs().maxCoeff() <= kMaxCoordinate))
      throw InputError(path + ": vertex " + std::to_string(i + 1) +
                       ": expected coordinates with |x| <= 1e12, got " + formatVec(mesh.positions[i]));
  for (const tinyobj::shape_t& s : reader.GetShapes()) {
    size_t offset = 0;
    for (const unsigned char n : s.mesh.num_face_vertices) {
      if (n == 3) {
        Vec3i t;
        for (int k = 0; k < 3; ++k) {
          t[k] = s.mesh.indices[offset + k].vertex_index;
          if (t[k] < 0 || t[k] >= nv)
            throw InputError(path + ": vertex index out of range: " + std::to_string(t[k] + 1) +
                             " (the file has " + std::to_string(nv) + " vertices)");
        }
        mesh.triangles.push_back(t);
      }
      offset += n;
    }
  }
  if (mesh.triangles.empty()) throw InputError(path + ": no triangles");

  // drop unused vertices, then weld coincident ones (exporters often split
  // vertices at texture seams; topology needs them shared)
  {
    std::vector<int> remap(mesh.positions.size(), -1);
    std::vector<Vec3> used;
    for (Vec3i& t : mesh.triangles)
      for (int k = 0; k < 3; ++k) {
        if (remap[t[k]] < 0) {
          remap[t[k]] = static_cast<int>(used.size());
          used.push_back(mesh.positions[t[k]]);
        }
        t[k] = remap[t[k]];
      }
    mesh.positions = std::move(used);
  }
  const Aabb box = mesh.bounds();
  const double diag = (box.hi - box.lo).norm();
  mesh.weld(1e-9 * diag);
  if (mesh.triangles.empty()) throw InputError(path + ": no triangles (all degenerate)");
  return mesh;
}

TriMesh loadObj(const std::string& path, MeshReport* report) {
  TriMesh mesh = loadObjSoup(path);
  const MeshReport r = orientPieces(&mesh);
  if (report) *report = r;
  if (!r.closed()) throw InputError(path + ": mesh is not closed: " + r.openProblems());
  const Aabb box = mesh.bounds();
  const double diag = (box.hi - box.lo).norm();
  if (!(r.volume > 1e-9 * diag * diag * diag))
    throw InputError(path + ": degenerate: zero volume (" + std::to_string(r.volume) + " m^3)");
  return mesh;
}

bool isStarShaped(const TriMesh& mesh, const Vec3& centre, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = text;
    return false;
  };
  if (mesh.triangles.empty()) return fail("the mesh has no triangles");
  const Aabb box = mesh.bounds();
  const double diag = (box.hi - box.lo).norm();

  // winding number about the centre: sum of the triangles' signed solid angles
  // (Van Oosterom & Strackee 1983) over 4 pi
  double solidAngle = 0;
  for (const Vec3i& t : mesh.triangles) {
    const Vec3 a = mesh.positions[t[0]] - centre, b = mesh.positions[t[1]] - centre,
               c = mesh.positions[t[2]] - centre;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    solidAngle += 2 * std::atan2(num, den);
  }
  const double winding = solidAngle / (4 * kPi);
  if (winding < 0.5) return fail("the centre " + formatVec(centre) + " is outside the mesh");
  if (winding > 1.5)
    return fail("the mesh encloses the centre " + std::to_string(std::lround(winding)) +
                " times (nested or overlapping shells)");

  // every triangle faces away from the centre: its plane has the centre behind it
  int bad = 0, firstBad = -1;
  double firstHeight = 0;
  for (int i = 0; i < static_cast<int>(mesh.triangles.size()); ++i) {
    const Vec3i& t = mesh.triangles[i];
    const Vec3& a = mesh.positions[t[0]];
    const Vec3 n = (mesh.positions[t[1]] - a).cross(mesh.positions[t[2]] - a);
    const double len = n.norm();
    if (len <= 1e-14 * diag * diag) continue;  // zero area: no ray crosses it
    const double height = n.dot(a - centre) / len;
    if (height <= 1e-9 * diag) {
      if (bad++ == 0) {
        firstBad = i;
        firstHeight = height;
      }
    }
  }
  if (bad > 0) {
    const Vec3i& t = mesh.triangles[firstBad];
    const Vec3 mid = (mesh.positions[t[0]] + mesh.positions[t[1]] + mesh.positions[t[2]]) / 3.0;
    std::ostringstream s;
    s << bad << " of " << mesh.triangles.size()
      << " triangles face the centre or are seen edge-on from it, e.g. triangle " << firstBad
      << " at " << formatVec(mid) << ", whose outward normal n gives n . (triangle - centre) = "
      << firstHeight << " m (must be > 0)";
    return fail(s.str());
  }
  if (why) why->clear();
  return true;
}

std::string notStarShapedMessage(const std::string& path, const std::string& why) {
  return path +
         ": mesh is not star-shaped about its centre (a ray from the centre crosses the surface "
         "more than once), so the cube-map atlas cannot represent it" +
         (why.empty() ? std::string() : ": " + why);
}

}  // namespace d2t

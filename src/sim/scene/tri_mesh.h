#pragma once
// Indexed triangle mesh: the surface representation shared by shapes,
// colliders, OBJ input and rendering.
#include <string>
#include <vector>

#include "sim/base/math.h"

namespace d2t {

/// Mass, centre of mass and inertia of a solid of uniform density.
struct MassProperties {
  double volume = 0;                 ///< [m^3]
  double mass = 0;                   ///< [kg]
  Vec3 com = Vec3::Zero();           ///< centre of mass [m]
  Mat3 inertia = Mat3::Zero();       ///< inertia tensor about com [kg m^2]
};

struct TriMesh {
  std::vector<Vec3> positions;   ///< (nvert) vertex positions [m]
  std::vector<Vec3i> triangles;  ///< (ntri) vertex indices, counter-clockwise seen from outside

  bool empty() const { return triangles.empty(); }
  /// Appends another mesh (indices are offset).
  void append(const TriMesh& other);
  /// x <- A x + t for every vertex (A must have positive determinant to keep orientation).
  void transform(const Mat3& A, const Vec3& t);
  Aabb bounds() const;
  /// Signed enclosed volume by the divergence theorem (positive for outward orientation) [m^3].
  double volume() const;
  /// Solid mass properties of the enclosed volume at `density` [kg/m^3].
  MassProperties massProperties(double density) const;
  /// True when every undirected edge is used by exactly two triangles in opposite directions.
  bool isClosed() const;
  /// Area-weighted unit vertex normals (nvert).
  std::vector<Vec3> vertexNormals() const;
  /// Merges vertices closer than `tol` [m] (tol <= 0: identical positions only) and
  /// removes the triangles that collapse; returns the number of vertices removed.
  int weld(double tol);
};

/// Unit, area-weighted vertex normals of triangles over `positions` (zero for unused vertices).
std::vector<Vec3> vertexNormals(const std::vector<Vec3>& positions, const std::vector<Vec3i>& triangles);

}  // namespace d2t

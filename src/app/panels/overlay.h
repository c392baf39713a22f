#pragma once
// Line overlays drawn over the scene (the View panel's toggles): contact nodes
// with their normals, and the stage-1 convex proxies. Pure geometry: the
// renderer draws the segments.
#include <vector>

#include <Eigen/Core>

#include "sim/character/bone_proxies.h"
#include "sim/world/world.h"

namespace d2t {

/// One end of a line segment (segments are consecutive pairs), world frame.
struct LineVertex {
  Eigen::Vector3f position;
  Eigen::Vector3f color;  ///< sRGB in [0, 1]
};

/// A segment from each contact node (at its current position) along its normal,
/// `length` long [m]: red against a collider, magenta against another body, yellow
/// for a speculative contact (depth <= 0, a gap within kContactMargin). `contacts`:
/// [body][contact], e.g. World::lastContacts().
void contactLines(World& world, const std::vector<std::vector<NodeContact>>& contacts, double length,
                  std::vector<LineVertex>* out);

/// Each body's stage-1 proxy: a cross at each proxy point (world frame) whose arms
/// are the proxy's margin (grown by the largest skin displacement, as stage 1 uses it); then
/// each character's bones' proxies likewise (blue; grown by the blend's and the skin's bound).
void proxyLines(World& world, std::vector<LineVertex>* out);

/// The characters' skeletons: each bone's segment as it is posed now (white), a cross at each
/// joint's anchor on its child (orange).
void boneLines(const World& world, std::vector<LineVertex>* out);

/// The control metaphors: a cross at each node of a region (green), of its first ring
/// (yellow) and second ring (purple) where the skin is now; the region's structure (its
/// cylinder, box or sphere, turning with the core; white); and, while one works, an arrow
/// along each node's force (orange, 6 cm at the largest). `selected` (-1: all) is drawn
/// alone when >= 0.
void metaphorLines(World& world, int selected, std::vector<LineVertex>* out);
/// A metaphor's structure (its cylinder, box or sphere, in the shape's frame: `offset` is
/// the shape's origin from the core's centre) placed by the core state `s`, and its
/// centre's handle (a cross and the axis).
void structureLines(const MetaphorDesc& d, const CoreState& s, const Vec3& offset, const Eigen::Vector3f& color,
                    std::vector<LineVertex>* out);
/// The brush's painted nodes of body `body` (a white cross each).
void paintedLines(World& world, int body, const std::vector<int>& nodes, std::vector<LineVertex>* out);

/// The proxy margin stage 1 uses for a body at its current state [m]: the baked margin
/// plus the largest skin displacement.
double grownProxyMargin(Body& body);

}  // namespace d2t

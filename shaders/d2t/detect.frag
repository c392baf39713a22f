#version 430 core
// Collision detection against the planes and height fields (T), as
// Collider::query on the CPU: each node at x = c + R (ub + q) takes the deepest
// collider within the margin (penetrating, or a gap under uMargin). The hits are
// appended to a list through an atomic counter, so that only they cross to the
// CPU (which sorts them by node), not a texture of the whole atlas.
#include "common.glsl"

const int kMaxColliders = D2T_MAX_DETECTED_COLLIDERS;

uniform sampler2D uQ;              // skin displacements q (body frame)
uniform sampler2DArray uHeights;   // r: grid vertex heights of each height field, a layer each
uniform vec3 uCenter;              // c: the body's position (world)
uniform mat3 uRotation;            // R: body to world
uniform float uMargin;
uniform int uColliders;
uniform int uKind[kMaxColliders];          // 0: plane, 1: height field
uniform vec4 uPlane[kMaxColliders];        // plane: unit normal (world), offset
uniform vec3 uPosition[kMaxColliders];     // height field: its frame's origin (world)
uniform mat3 uOrientation[kMaxColliders];  // ... and orientation (field frame to world)
uniform vec4 uGrid[kMaxColliders];         // ... grid origin x, z (field frame), cell, resolution n
uniform int uLayer[kMaxColliders];         // ... its layer of uHeights
uniform vec3 uVelocity[kMaxColliders];     // ... linear velocity (world)
uniform vec3 uSpin[kMaxColliders];         // ... angular velocity (world)

struct Hit {
  D2T_DETECT_HIT(ivec4, vec4)
};
layout(std430, binding = 0) buffer Hits {
  uint gCount;
  uint gPad0, gPad1, gPad2;
  Hit gHits[];
};

layout(location = 0) out vec4 oUnused;

float heightAt(int layer, int i, int j) { return texelFetch(uHeights, ivec3(i, j, layer), 0).r; }

void main() {
  oUnused = vec4(0.0);
  if (!beginTexel() || gWeight == 0.0) return;  // (node texels only: each node once)
  vec3 x = uCenter + uRotation * (gRestPos + at(uQ, gSrc));
  float deepest = -uMargin;
  int best = -1;
  vec3 normal = vec3(0.0), velocity = vec3(0.0);
  for (int k = 0; k < uColliders; ++k) {
    float d;
    vec3 n, v = vec3(0.0);
    if (uKind[k] == 0) {
      n = uPlane[k].xyz;
      d = dot(n, x) - uPlane[k].w;
    } else {
      // HeightField::sample: the cell's bilinear patch, clamped outside the square
      vec3 p = transpose(uOrientation[k]) * (x - uPosition[k]);
      vec4 g = uGrid[k];
      int res = int(g.w);
      float u = clamp((p.x - g.x) / g.z + 0.5 * g.w, 0.0, g.w);
      float w = clamp((p.z - g.y) / g.z + 0.5 * g.w, 0.0, g.w);
      int i = min(int(u), res - 1), j = min(int(w), res - 1);
      float fx = u - float(i), fz = w - float(j);
      float h00 = heightAt(uLayer[k], i, j), h10 = heightAt(uLayer[k], i + 1, j);
      float h01 = heightAt(uLayer[k], i, j + 1), h11 = heightAt(uLayer[k], i + 1, j + 1);
      float height = (1.0 - fz) * ((1.0 - fx) * h00 + fx * h10) + fz * ((1.0 - fx) * h01 + fx * h11);
      float halfSide = 0.5 * g.z * g.w;
      float hx = abs(p.x - g.x) <= halfSide ? ((1.0 - fz) * (h10 - h00) + fz * (h11 - h01)) / g.z : 0.0;
      float hz = abs(p.z - g.y) <= halfSide ? ((1.0 - fx) * (h01 - h00) + fx * (h11 - h10)) / g.z : 0.0;
      n = uOrientation[k] * normalize(vec3(-hx, 1.0, -hz));
      d = p.y - height;
      v = uVelocity[k] + cross(uSpin[k], x - uPosition[k]);
    }
    if (d >= uMargin || (best >= 0 && -d <= deepest)) continue;
    deepest = -d;
    best = k;
    normal = n;
    velocity = v;
  }
  if (best < 0) return;
  uint slot = atomicAdd(gCount, 1u);
  gHits[slot] = Hit(ivec4(gSrc, best, 0), vec4(normal, deepest), vec4(velocity, 0.0));
}

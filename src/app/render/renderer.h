#pragma once
// Draws the world (bodies, colliders) with one directional light and its
// shadow into an offscreen RenderTarget. Windowed and headless runs share it.
#include <memory>
#include <vector>

#include "app/window/camera.h"
#include "app/panels/overlay.h"
#include "app/render/view_options.h"
#include "gpu/skin/gpu_skin.h"
#include "gpu/gl/render_target.h"
#include "gpu/gl/shader.h"
#include "sim/world/world.h"

namespace d2t {

/// A triangle mesh in GPU buffers (interleaved position + normal, float).
class GpuMesh {
 public:
  explicit GpuMesh(const TriMesh& mesh);
  ~GpuMesh();
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;
  void draw() const;
  /// Replaces the vertex positions (same count and triangles); normals are recomputed.
  void update(const TriMesh& mesh);

 private:
  GLuint vao_ = 0, vbo_ = 0, ebo_ = 0;
  GLsizei count_ = 0;
  size_t vertices_ = 0;
};

/// A body's skin drawn straight from the GPU solver's textures: only an index
/// buffer of node indices (the vertex shader fetches positions and normals).
class SkinIndexBuffer {
 public:
  explicit SkinIndexBuffer(const std::vector<Vec3i>& triangles);
  ~SkinIndexBuffer();
  SkinIndexBuffer(const SkinIndexBuffer&) = delete;
  SkinIndexBuffer& operator=(const SkinIndexBuffer&) = delete;
  void draw() const;

 private:
  GLuint vao_ = 0, ebo_ = 0;
  GLsizei count_ = 0;
};

/// Line segments in a dynamic vertex buffer (overlays: contacts, proxies).
class LineBatch {
 public:
  LineBatch();
  ~LineBatch();
  LineBatch(const LineBatch&) = delete;
  LineBatch& operator=(const LineBatch&) = delete;
  /// Replaces the segments (consecutive pairs of vertices) and draws them.
  void draw(const std::vector<LineVertex>& vertices);

 private:
  GLuint vao_ = 0, vbo_ = 0;
  size_t capacity_ = 0;  // vertices the buffer holds
};

class Renderer {
 public:
  Renderer();
  /// Uploads the meshes of a (new) world; call after loading a scene.
  void setWorld(World& world);
  /// Renders the current state of `world` (the one given to setWorld) into `target`.
  /// gpuSkins[i]: the GPU solver attached to body i, if any (Session::gpuSkins): the
  /// body's skin is drawn from its textures while the body runs on it.
  void render(World& world, const Camera& camera, RenderTarget& target, const ViewOptions& options,
              const std::vector<std::shared_ptr<GpuSkin>>& gpuSkins = {});
  /// How the last frame drew the bodies' skins: from a GPU solver's textures, or from
  /// a mesh of the CPU's copy (a body on the CPU, or one whose solver's skin could not
  /// be drawn from its textures).
  struct FrameSkins {
    int fromTextures = 0, fromMesh = 0;
  };
  const FrameSkins& lastFrameSkins() const { return frameSkins_; }
  /// True when the skin-from-texture shaders compiled (otherwise the constructor
  /// warned once, on stderr, and every skin is drawn from a mesh).
  bool drawsSkinsFromTextures() const { return skinProgram_.id() != 0; }

 private:
  // one draw of a frame: a mesh (or a GPU solver's skin) with its model matrix and colour
  struct Draw {
    const GpuMesh* mesh;
    Eigen::Matrix4f model;
    Eigen::Vector3f color;
    bool checker;
    const GpuSkin* skin = nullptr;             // drawn from this solver's textures instead
    const SkinIndexBuffer* indices = nullptr;  // (with this index buffer)
    bool isSkin = false;                       // a body's skin (the wireframe toggle applies)
  };
  // render()'s parts, in its order
  std::vector<Draw> collectDraws(World& world, const ViewOptions& options,
                                 const std::vector<std::shared_ptr<GpuSkin>>& gpuSkins, Aabb& bounds);
  void shadowPass(const std::vector<Draw>& draws, const Eigen::Matrix4f& lightViewProj, const ViewOptions& options);
  void litPass(const std::vector<Draw>& draws, const Camera& camera, RenderTarget& target,
               const Eigen::Matrix4f& viewProj, const Eigen::Matrix4f& lightViewProj, const Vec3& lightDir,
               const ViewOptions& options);
  void overlayPass(World& world, const Eigen::Matrix4f& viewProj, const ViewOptions& options);

  ShaderProgram meshProgram_, shadowProgram_;
  ShaderProgram skinProgram_, skinShadowProgram_;  // the same, skin from the GPU solver's textures
  ShaderProgram lineProgram_;
  ShadowMap shadowMap_;
  std::vector<std::unique_ptr<GpuMesh>> bodyMeshes_, colliderMeshes_;
  std::vector<std::unique_ptr<GpuMesh>> characterMeshes_;  // (the characters' skins, updated every frame)
  std::vector<std::unique_ptr<GpuMesh>> coreMeshes_;  // body frame (rigid): drawn with the body's pose
  std::vector<const BakedBody*> coreModels_;          // the model each core mesh was made from
  std::unique_ptr<LineBatch> lines_;
  std::vector<std::unique_ptr<SkinIndexBuffer>> skinIndices_;
  FrameSkins frameSkins_;
};

}  // namespace d2t

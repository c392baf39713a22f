// Vertex input of bodies and colliders. With SKIN_TEXTURES (GPU backend) a
// body's skin is drawn straight from the solver's textures: the index buffer
// holds node indices (gl_VertexID), the vertex shader fetches the node's
// deformed position u = ub + q (body frame) and unit normal from its texel.
#ifdef SKIN_TEXTURES
uniform sampler2D uSurface;
uniform sampler2D uNormals;
uniform isamplerBuffer uNodeTexel;
vec3 inputPosition() { return texelFetch(uSurface, texelFetch(uNodeTexel, gl_VertexID).xy, 0).xyz; }
vec3 inputNormal() { return texelFetch(uNormals, texelFetch(uNodeTexel, gl_VertexID).xy, 0).xyz; }
#else
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
vec3 inputPosition() { return aPosition; }
vec3 inputNormal() { return aNormal; }
#endif

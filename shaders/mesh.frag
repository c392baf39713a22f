#version 330 core
// Blinn-Phong with a hemispherical ambient, a percentage-closer-filtered
// shadow from one directional light, and an optional world-space checker.
in vec3 vWorld;
in vec3 vNormal;
in vec4 vLight;

uniform vec3 uColor;
uniform vec3 uLightDir;       // unit vector towards the light (world)
uniform vec3 uEye;            // camera position (world)
uniform int uChecker;         // 1: modulate by a 0.5 m checker in x/z
uniform sampler2DShadow uShadowMap;
uniform float uShadowTexel;   // 1 / shadow map size

out vec4 fragColor;

float shadowFactor(vec3 n) {
  vec3 p = vLight.xyz / vLight.w * 0.5 + 0.5;
  if (p.z > 1.0) return 1.0;
  float bias = max(0.0025 * (1.0 - dot(n, uLightDir)), 0.0008);
  float lit = 0.0;
  for (int y = -1; y <= 1; ++y)
    for (int x = -1; x <= 1; ++x)
      lit += texture(uShadowMap, vec3(p.xy + vec2(x, y) * uShadowTexel, p.z - bias));
  return lit / 9.0;
}

void main() {
  vec3 n = normalize(vNormal);
  if (!gl_FrontFacing) n = -n;
  vec3 base = pow(uColor, vec3(2.2));  // colours are given in sRGB; light in linear space
  if (uChecker == 1) {
    vec2 c = floor(vWorld.xz / 0.5);
    base *= mod(c.x + c.y, 2.0) < 0.5 ? 1.0 : 0.82;
  }
  vec3 v = normalize(uEye - vWorld);
  vec3 h = normalize(v + uLightDir);
  float diffuse = max(dot(n, uLightDir), 0.0);
  float specular = pow(max(dot(n, h), 0.0), 48.0) * 0.25;
  float shadow = shadowFactor(n);
  float hemi = 0.5 + 0.5 * n.y;
  vec3 ambient = base * mix(vec3(0.18, 0.17, 0.16), vec3(0.32, 0.36, 0.42), hemi);
  vec3 color = ambient + shadow * (base * diffuse * vec3(1.0, 0.97, 0.92) + specular);
  // distance fog into the sky colour hides the far edge of the ground
  float fog = 1.0 - exp(-0.0006 * dot(uEye - vWorld, uEye - vWorld));
  color = mix(color, pow(vec3(0.62, 0.70, 0.80), vec3(2.2)), clamp(fog, 0.0, 1.0));
  fragColor = vec4(pow(color, vec3(1.0 / 2.2)), 1.0);
}

// The texture viewer: an atlas channel of a body, or the contact camera's D texture of a pair.

#include "app/panels/panels.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "app/app.h"
#include "app/panels/material_panel.h"
#include "app/window/ui_scale.h"

namespace d2t {

namespace fs = std::filesystem;

static void uploadPicture(Ui& ui, TexturePicture pic) {
  if (!ui.atlasTexture) glGenTextures(1, &ui.atlasTexture);
  glBindTexture(GL_TEXTURE_2D, ui.atlasTexture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (pic.width > 0 && pic.height > 0)
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, pic.width, pic.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pic.rgba.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  ui.atlasPicture = std::move(pic);
}

// the contact camera's snapshots of D after this frame's steps: the latest per pair;
// none after a step means no pair reached stage 2 any more
static void takeSnapshots(Ui& ui) {
  ContactCamera* cam = ui.session.contactCamera.get();
  const long steps = ui.session.world->steps();
  if (!cam) {
    ui.snapshotsChanged = !ui.snapshots.empty();
    ui.snapshots.clear();
    return;
  }
  std::vector<ContactCamera::Snapshot> fresh = cam->takeSnapshots();
  if (!fresh.empty() || steps != ui.snapshotStep) {
    ui.snapshots = std::move(fresh);
    ui.snapshotStep = steps;
    ui.snapshotsChanged = true;
  }
}

// the viewer's textures: the atlas channels, then D (index atlasChannels().size())
const char* viewerTextureLabel(int i) {
  const auto& channels = atlasChannels();
  return i >= 0 && i < int(channels.size()) ? channels[size_t(i)].second : "contact texture D (GPU contact camera)";
}

namespace {

// The contact texture D of one pair the contact camera met in the last step: the pair
// chooser and the upload. False: there is no picture to show (said why).
bool showContactTexture(Ui& ui, int dChannel) {
  bool haveImage = true;
  if (!ui.session.contactCamera) {
    ImGui::TextWrapped("The contact camera runs between two bodies, or a body and a mesh collider, on the GPU "
                       "backend (Simulation panel); this scene runs %s.",
                       ui.session.world->settings().backend == "gpu" ? "neither" : "the CPU backend");
    haveImage = false;
  } else if (ui.snapshots.empty()) {
    ImGui::TextWrapped("No pair reached stage 2 in the last step (D is drawn only where two "
                       "surfaces overlap along the pair normal; it is read back only while shown, so a "
                       "paused run needs a step, N).");
    haveImage = false;
  } else {
    ui.atlasPair = std::clamp(ui.atlasPair, 0, int(ui.snapshots.size()) - 1);
    auto pairName = [&](int i) { return ui.snapshots[size_t(i)].bodyA + " - " + ui.snapshots[size_t(i)].bodyB; };
    if (ImGui::BeginCombo("pair", pairName(ui.atlasPair).c_str())) {
      for (int i = 0; i < int(ui.snapshots.size()); ++i)
        if (ImGui::Selectable(pairName(i).c_str(), i == ui.atlasPair)) ui.atlasPair = i;
      ImGui::EndCombo();
    }
    if (ui.snapshotsChanged || ui.atlasShownChannel != dChannel || ui.atlasShownPair != ui.atlasPair) {
      const ContactCamera::Snapshot& sn = ui.snapshots[size_t(ui.atlasPair)];
      uploadPicture(ui, contactTexturePicture(sn.resolution, sn.d));
      ui.atlasShownChannel = dChannel;
      ui.atlasShownPair = ui.atlasPair;
      ui.atlasShownModel = nullptr;
    }
  }
  ui.snapshotsChanged = false;
  return haveImage;
}

// One atlas channel of one body: the body chooser and the upload (a live channel again
// after every step; the skin read back from a GPU solver that holds it).
void showAtlasChannel(Ui& ui) {
  auto& bodies = ui.session.world->bodies();
  ui.atlasBody = std::clamp(ui.atlasBody, 0, int(bodies.size()) - 1);
  if (ImGui::BeginCombo("body", bodies[size_t(ui.atlasBody)].desc.name.c_str())) {
    for (int i = 0; i < int(bodies.size()); ++i)
      if (ImGui::Selectable(bodies[size_t(i)].desc.name.c_str(), i == ui.atlasBody)) ui.atlasBody = i;
    ImGui::EndCombo();
  }
  Body& body = bodies[size_t(ui.atlasBody)];
  const AtlasChannel channel = atlasChannels()[size_t(ui.atlasChannel)].first;
  const long steps = ui.session.world->steps();
  if (ui.atlasShownBody != ui.atlasBody || ui.atlasShownChannel != ui.atlasChannel ||
      ui.atlasShownModel != body.model.get() || (isLiveChannel(channel) && ui.atlasShownStep != steps)) {
    const auto& contacts = ui.session.world->lastContacts();
    static const std::vector<NodeContact> none;
    const std::vector<NodeContact>& mine =
        size_t(ui.atlasBody) < contacts.size() ? contacts[size_t(ui.atlasBody)] : none;
    uploadPicture(ui, atlasPicture(*body.model, channel, &body.layered.state(), &mine));
    ui.atlasShownBody = ui.atlasBody;
    ui.atlasShownChannel = ui.atlasChannel;
    ui.atlasShownModel = body.model.get();
    ui.atlasShownStep = steps;
  }
}

// The picture, upright, with the value under the cursor and its colour scale.
void drawPicture(Ui& ui) {
  const TexturePicture& pic = ui.atlasPicture;
  if (pic.width <= 0) return;
  const float side = ImGui::GetContentRegionAvail().x;
  // texel row 0 is the bottom row: flip v so the picture is upright
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(ui.atlasTexture)), ImVec2(side, side),
               ImVec2(0, 1), ImVec2(1, 0));
  if (ImGui::IsItemHovered()) {  // the value under the cursor
    const ImVec2 lo = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize(), m = ImGui::GetMousePos();
    const int x = int(std::floor((m.x - lo.x) / std::max(size.x, 1.0f) * float(pic.width)));
    const int y = pic.height - 1 - int(std::floor((m.y - lo.y) / std::max(size.y, 1.0f) * float(pic.height)));
    const std::string r = pictureReadout(pic, x, y);
    if (!r.empty()) ImGui::SetTooltip("%s", r.c_str());
  }
  if (pic.hi > pic.lo) ImGui::Text("blue %.3g .. red %.3g %s", pic.lo, pic.hi, pic.unit.c_str());
}

// What the picture shows: D's pair normal and texel size, or the atlas's figures.
void pictureCaption(Ui& ui, bool haveImage, int dChannel) {
  if (ui.atlasChannel == dChannel) {
    if (!haveImage) return;
    const ContactCamera::Snapshot& sn = ui.snapshots[size_t(ui.atlasPair)];
    ImGui::TextWrapped("D = h_A - h_B along n = (%.2f, %.2f, %.2f): overlap on the colour map, grey apart "
                       "(darker: wider gap), black: a skin missing. %d x %d texels of %.2f mm.",
                       sn.normal.x(), sn.normal.y(), sn.normal.z(), sn.resolution, sn.resolution, sn.texelSize * 1e3);
    return;
  }
  const TexturePicture& pic = ui.atlasPicture;
  const BakedBody& m = *ui.session.world->bodies()[size_t(ui.atlasBody)].model;
  const AtlasChannel channel = atlasChannels()[size_t(ui.atlasChannel)].first;
  if ((channel == AtlasChannel::ContactDepth || channel == AtlasChannel::ContactNormal) &&
      std::none_of(pic.values.begin(), pic.values.end(), [](float v) { return std::isfinite(v); }))
    ImGui::TextDisabled("no contacts in the last step");
  else if (channel == AtlasChannel::ContactDepth || channel == AtlasChannel::ContactNormal)
    ImGui::TextDisabled("grey: no contact at that node");
  const int n = m.atlas.resolution;
  ImGui::Text("%d x %d texels, %d patches", n, n, m.atlas.patchCount);
  ImGui::Text("%d nodes, %d tetrahedra", m.nodeCount(), m.tetCount());
  ImGui::Text("mass %.3f kg (core %.3f kg)", m.totalMass, m.coreMass);
}

}  // namespace

void atlasPanel(Ui& ui) {
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 300 * ui.scale, 10 * ui.scale),
                          ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(px(ui, 290, 400), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Atlas", &ui.settings.panels.atlas)) return ImGui::End();
  if (ui.session.world->bodies().empty()) {
    ImGui::TextUnformatted(ui.session.world->characters().empty()
                               ? "no deformable bodies"
                               : "no atlas bodies: a character's skin is a general surface mesh");
    ImGui::End();
    return;
  }
  const int dChannel = int(atlasChannels().size());  // (the last texture: D)
  ui.atlasChannel = std::clamp(ui.atlasChannel, 0, dChannel);
  if (ImGui::BeginCombo("texture", viewerTextureLabel(ui.atlasChannel))) {
    for (int i = 0; i <= dChannel; ++i)
      if (ImGui::Selectable(viewerTextureLabel(i), i == ui.atlasChannel)) ui.atlasChannel = i;
    ImGui::EndCombo();
  }
  ui.settings.atlasTexture = viewerTextureLabel(ui.atlasChannel);  // kept for the next run
  takeSnapshots(ui);
  bool haveImage = true;
  if (ui.atlasChannel == dChannel)
    haveImage = showContactTexture(ui, dChannel);
  else
    showAtlasChannel(ui);
  if (haveImage) drawPicture(ui);
  pictureCaption(ui, haveImage, dChannel);
  ImGui::End();
}

// View toggles, which panels are open, and recording.

}  // namespace d2t

#pragma once
// Recording what the window shows: a sequence of frames (the rendered scene,
// without the panels) to numbered PNGs in a timestamped folder, or piped to
// ffmpeg as an MP4 when ffmpeg is on PATH (an optional dependency).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace d2t {

/// Full path of an executable on $PATH, "" when there is none.
std::string findOnPath(const std::string& program);

/// "PREFIX-YYYYmmdd-HHMMSS" + suffix in local time (screenshots, recordings, bench CSVs).
std::string timestampedName(const std::string& prefix, const std::string& suffix);

class FrameRecorder {
 public:
  enum class Format { Png, Mp4 };
  FrameRecorder() = default;
  ~FrameRecorder();
  FrameRecorder(const FrameRecorder&) = delete;
  FrameRecorder& operator=(const FrameRecorder&) = delete;

  /// Starts recording to `path` (Png: a folder, created; Mp4: a file written by ffmpeg
  /// at `fps` frames per second). Returns false with `*error` set when it cannot start
  /// (Mp4 without ffmpeg on PATH, a folder that cannot be made).
  bool start(Format format, const std::string& path, int fps, std::string* error);
  /// One frame of width x height RGB8 pixels, top row first. Returns false (and stops,
  /// with error() set) on a write failure or when the size changes during an MP4.
  bool addFrame(int width, int height, const std::vector<uint8_t>& rgb);
  /// Stops; returns a line for the status bar ("42 frames written to ...").
  std::string stop();

  bool recording() const { return active_; }
  int frames() const { return frames_; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  bool active_ = false;
  Format format_ = Format::Png;
  std::string path_, error_;
  int frames_ = 0, width_ = 0, height_ = 0, fps_ = 60;
  FILE* pipe_ = nullptr;  // ffmpeg's stdin (Mp4)
};

}  // namespace d2t

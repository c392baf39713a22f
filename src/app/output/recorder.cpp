#include "app/output/recorder.h"

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "app/app.h"

namespace d2t {

namespace fs = std::filesystem;

std::string findOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path || program.empty()) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    // an empty entry is the working directory
    const fs::path candidate = (dir.empty() ? fs::path(".") : fs::path(dir)) / program;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string timestampedName(const std::string& prefix, const std::string& suffix) {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "-%Y%m%d-%H%M%S", std::localtime(&t));
  return prefix + buf + suffix;
}

FrameRecorder::~FrameRecorder() {
  if (active_) stop();
}

bool FrameRecorder::start(Format format, const std::string& path, int fps, std::string* error) {
  if (active_) stop();
  error_.clear();
  format_ = format;
  path_ = path;
  fps_ = std::max(fps, 1);
  frames_ = width_ = height_ = 0;
  if (format == Format::Png) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec || !fs::is_directory(path, ec)) {
      if (error) *error = path + ": cannot create the folder for the frames";
      return false;
    }
  } else if (findOnPath("ffmpeg").empty()) {
    if (error) *error = "ffmpeg is not installed (not on PATH): record PNG frames instead, or apt-get install ffmpeg";
    return false;
  }
  active_ = true;  // an MP4's pipe opens with the first frame, when its size is known
  return true;
}

namespace {

// 'path' for sh -c, whatever the path holds (a quote closes, is escaped, reopens)
std::string shellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

bool FrameRecorder::addFrame(int width, int height, const std::vector<uint8_t>& rgb) {
  if (!active_) return false;
  if (width <= 0 || height <= 0 || rgb.size() < size_t(width) * size_t(height) * 3) {
    error_ = "a frame without pixels";
    stop();
    return false;
  }
  if (format_ == Format::Png) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06d.png", frames_);
    try {
      writePng((fs::path(path_) / name).string(), width, height, rgb);
    } catch (const std::exception& e) {
      error_ = e.what();
      stop();
      return false;
    }
    ++frames_;
    return true;
  }
  if (!pipe_) {
    // a dead ffmpeg must give a short write, not kill the program with SIGPIPE
    std::signal(SIGPIPE, SIG_IGN);
    const int evenW = width & ~1, evenH = height & ~1;  // yuv420p wants even sizes: crop a column/row
    std::ostringstream cmd;
    cmd << "ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgb24 -s " << width << "x" << height << " -r " << fps_
        << " -i - -vf crop=" << evenW << ":" << evenH << ":0:0 -c:v libx264 -pix_fmt yuv420p " << shellQuoted(path_);
    pipe_ = ::popen(cmd.str().c_str(), "w");
    if (!pipe_) {
      error_ = "cannot start ffmpeg";
      stop();
      return false;
    }
    width_ = width;
    height_ = height;
  }
  if (width != width_ || height != height_) {
    error_ = "the window changed size: the video stops here";
    stop();
    return false;
  }
  const size_t bytes = size_t(width) * size_t(height) * 3;
  if (std::fwrite(rgb.data(), 1, bytes, pipe_) != bytes) {
    error_ = "ffmpeg stopped reading (see its messages on the terminal)";
    stop();
    return false;
  }
  ++frames_;
  return true;
}

std::string FrameRecorder::stop() {
  if (!active_) return error_;
  active_ = false;
  if (pipe_) {
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    if (status != 0 && error_.empty()) error_ = "ffmpeg exited with an error";
  }
  std::ostringstream line;
  line << frames_ << " frames written to " << path_;
  if (!error_.empty()) line << " (" << error_ << ")";
  return line.str();
}

}  // namespace d2t

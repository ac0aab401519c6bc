// rocport_helper_string.h: added by `rocport port` in place of the CUDA samples' helper_string.h,
// which the project includes from the CUDA SDK (it is not part of the project's tree).
// The same names: command-line flags (`-name`, `--name=value`) and sdkFindFilePath.
#ifndef ROCPORT_HELPER_STRING_H
#define ROCPORT_HELPER_STRING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

// Offset of the name in `-name` or `--name`.
inline int stringRemoveDelimiter(char delimiter, const char* string) {
  int start = 0;
  while (string[start] == delimiter) ++start;
  return string[start] == '\0' ? 0 : start;
}

// The value after `-name=` in argv, or nullptr.
inline const char* rocport_flag_value(int argc, const char** argv, const char* name) {
  size_t length = strlen(name);
  if (length > 0 && name[length - 1] == '=') --length;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i] + stringRemoveDelimiter('-', argv[i]);
    if (strncmp(arg, name, length) == 0 && (arg[length] == '\0' || arg[length] == '=')) {
      return arg + length;
    }
  }
  return nullptr;
}

inline bool checkCmdLineFlag(int argc, const char** argv, const char* name) {
  return rocport_flag_value(argc, argv, name) != nullptr;
}

inline int getCmdLineArgumentInt(int argc, const char** argv, const char* name) {
  const char* value = rocport_flag_value(argc, argv, name);
  return value != nullptr && *value == '=' ? atoi(value + 1) : 0;
}

inline float getCmdLineArgumentFloat(int argc, const char** argv, const char* name) {
  const char* value = rocport_flag_value(argc, argv, name);
  return value != nullptr && *value == '=' ? static_cast<float>(atof(value + 1)) : 0.0f;
}

inline bool getCmdLineArgumentString(int argc, const char** argv, const char* name,
                                     char** out) {
  const char* value = rocport_flag_value(argc, argv, name);
  if (value == nullptr || *value != '=') return false;
  *out = const_cast<char*>(value + 1);
  return true;
}

// The file as named, or beside the executable (argv[0]'s folder); nullptr when neither exists.
inline char* sdkFindFilePath(const char* filename, const char* executable) {
  std::string candidates[2] = {filename, ""};
  if (executable != nullptr) {
    std::string exe(executable);
    size_t slash = exe.find_last_of('/');
    if (slash != std::string::npos) candidates[1] = exe.substr(0, slash + 1) + filename;
  }
  for (const std::string& path : candidates) {
    if (path.empty()) continue;
    if (FILE* file = fopen(path.c_str(), "rb")) {
      fclose(file);
      char* found = static_cast<char*>(malloc(path.size() + 1));
      if (found != nullptr) memcpy(found, path.c_str(), path.size() + 1);
      return found;
    }
  }
  return nullptr;
}

#endif  // ROCPORT_HELPER_STRING_H

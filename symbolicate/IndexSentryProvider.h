// IndexSentryProvider.h - the images of Sentry events (SentryEvent.h) found through a
// symbols::ModuleIndex, as `ilmap symbolicate` and `ilmap serve` find them: by debug id (the
// PDB id: never answered from a PDB with another id), an image without one by its code file's
// name, as CoreCLR frames are. The symbol path is asked under the debug file's name, else the
// code file's (an SSQP key needs a file name; the resolver validates it).
#pragma once

#include <string>

#include "symbolicate/SentryEvent.h"
#include "symbols/ModuleIndex.h"

namespace ilmap::symbolicate {

class IndexSentryProvider : public SentryModuleProvider {
 public:
  explicit IndexSentryProvider(symbols::ModuleIndex& index) : index_(index) {}
  const Cache* find(const SentryImage& image, std::string& why_not) override;

 private:
  symbols::ModuleIndex& index_;
};

}  // namespace ilmap::symbolicate

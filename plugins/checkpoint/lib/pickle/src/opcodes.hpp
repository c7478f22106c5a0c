// The pickle opcodes dopant reads and writes (pickletools' names), one byte each: shared by
// the safe reader (pickle.cpp) and the writer (writer.cpp), so both speak the same table.
#pragma once

#include <cstdint>

namespace dopant::pickle::opcodes {

enum Op : uint8_t {
  kProto = 0x80, kFrame = 0x95, kStop = '.', kMark = '(', kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')',
  kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kList = 'l', kDict = 'd', kAppend = 'a',
  kAppends = 'e', kSetItem = 's', kSetItems = 'u', kBinUnicode = 'X', kShortBinUnicode = 0x8c,
  kBinUnicode8 = 0x8d, kBinBytes = 'B', kShortBinBytes = 'C', kBinBytes8 = 0x8e, kBinInt = 'J', kBinInt1 = 'K',
  kBinInt2 = 'M', kLong1 = 0x8a, kLong4 = 0x8b, kBinFloat = 'G', kNone = 'N', kNewTrue = 0x88, kNewFalse = 0x89,
  kBinPut = 'q', kLongBinPut = 'r', kBinGet = 'h', kLongBinGet = 'j', kMemoize = 0x94, kGlobal = 'c',
  kStackGlobal = 0x93, kReduce = 'R', kNewObj = 0x81, kBuild = 'b', kBinPersId = 'Q', kPop = '0',
  kPopMark = '1', kDup = '2',
};

}  // namespace dopant::pickle::opcodes

# Finds the CUDA toolkit and, when it and nvcc are there, enables the CUDA language for the
# whole project (DOPANT_HAVE_CUDA). Enabled here, before any target exists, so that every
# target gets CUDA_ARCHITECTURES from CMAKE_CUDA_ARCHITECTURES, whichever generator is used.
set(DOPANT_HAVE_CUDA OFF)
if(DOPANT_WITH_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
    set(DOPANT_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "dopant: CUDA paths ${DOPANT_HAVE_CUDA}")
if(NOT DOPANT_HAVE_CUDA)
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
endif()
set(CMAKE_CUDA_ARCHITECTURES 80 90 CACHE STRING "GPU architectures to build for (A100; H100/H200)")
enable_language(CUDA)
# CMake 3.25 does not know nvcc's C++20 flag (and CUDA follows CXX_STANDARD 20).
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

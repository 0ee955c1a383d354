-- Portolan build: works with Debian's premake4 (4.3) and with premake5 (see ../shared/TOOLCHAIN.md).
--   premake4 --file=premake5.lua gmake && make -C build config=release
-- Configurations: release (-O2), debug (-O0 -g), asan (-O1 -g, AddressSanitizer + UBSan).
-- Binaries land in build/bin/<config>/: portolan (CLI), portolan-tests, portolan-bench.

local P5 = (filter ~= nil)
local function when(cfg)
    if P5 then filter("configurations:" .. cfg) else configuration(cfg) end
end
local function always()
    if P5 then filter({}) else configuration("*") end
end

solution "portolan"
    configurations { "release", "debug", "asan" }
    location "build"
    objdir "build/obj"
    language "C"
    includedirs { "include" }
    defines { "_POSIX_C_SOURCE=200809L" }
    buildoptions { "-Wall", "-Wextra", "-Wno-missing-field-initializers" }
    -- C11 for C sources, C++11 for the one C++ source (bench/peer_recast.cpp, the Recast/Detour
    -- peer). premake5 has cdialect/cppdialect. premake4 compiles .cpp files with
    -- CXXFLAGS = CFLAGS + ..., so one -std would reach both compilers; make picks the standard per
    -- source file instead ($< is the file being compiled when the recipe expands CFLAGS).
    if cdialect then
        cdialect "C11"
        cppdialect "C++11"
    else
        buildoptions { "$(if $(filter %.cpp,$<),-std=c++11,-std=c11)" }
    end
    when "release"
        buildoptions { "-O2", "-g" }
        targetdir "build/bin/release"

    when "debug"
        buildoptions { "-O0", "-g" }
        targetdir "build/bin/debug"

    when "asan"
        buildoptions { "-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined" }
        linkoptions { "-fsanitize=address,undefined" }
        targetdir "build/bin/asan"

    always()

project "portolan_runtime"
    kind "StaticLib"
    files { "runtime/*.c", "runtime/*.h", "include/portolan/*.h" }

project "portolan_bake"
    kind "StaticLib"
    files { "bake/*.c", "bake/*.h" }

project "portolan"
    kind "ConsoleApp"
    files { "tools/*.c", "tools/*.h" }
    links { "portolan_bake", "portolan_runtime", "pthread", "m" }

project "portolan-tests"
    kind "ConsoleApp"
    files { "tests/*.c", "tests/*.h", "tools/jobs.c", "tools/jobs.h" }
    links { "portolan_bake", "portolan_runtime", "criterion", "pthread", "m" }

project "portolan-bench"
    kind "ConsoleApp"
    -- bench/peer_recast.cpp wraps Recast/Detour (Debian's librecast-dev, no pkg-config file) for the
    -- same-run comparison; linked with gcc, so the C++ runtime is named explicitly.
    files { "bench/*.c", "bench/*.h", "bench/*.cpp", "tools/jobs.c", "tools/jobs.h" }
    includedirs { "/usr/include/recastnavigation" }
    links { "portolan_bake", "portolan_runtime", "DetourTileCache", "Detour", "Recast", "stdc++", "pthread", "m" }

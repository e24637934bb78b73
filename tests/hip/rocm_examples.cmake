# AMD's rocm-examples HIP-Basic (third_party/rocm-examples, a subset, unchanged): each example built
# by hipcc for the simulated targets and run under hsad-sim with two GPUs on a CDNA (gfx90a) and an
# RDNA (gfx1030, wave32) target, as a user would run them: it passes on exit status 0, and fails on
# the words an example prints when its results are wrong or a HIP call failed.
set(rocm_examples ${PROJECT_SOURCE_DIR}/third_party/rocm-examples)
set(rocm_example_names bandwidth bit_extract cooperative_groups device_globals device_query dynamic_shared events
    gpu_arch hello_world inline_assembly matrix_multiplication moving_average multi_gpu_data_transfer occupancy
    runtime_compilation saxpy shared_memory streams warp_shuffle)
foreach(name IN LISTS rocm_example_names)
  set(src ${rocm_examples}/HIP-Basic/${name}/main.hip)
  if(NOT EXISTS ${src})
    set(src ${rocm_examples}/HIP-Basic/${name}/main.cpp)  # device_query: host code only
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/rocm-examples/${name})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/rocm-examples
    COMMAND ${HSAD_HIPCC} -std=c++17 -O2 -x hip --offload-arch=gfx90a --offload-arch=gfx1030 -w
            -I${rocm_examples}/Common ${src} -o ${out}
    DEPENDS ${src} COMMENT "hipcc: AMD's HIP-Basic example ${name}")
  add_custom_target(hsad_rocm_example_${name} ALL DEPENDS ${out})
  foreach(target gfx90a gfx1030)
    add_test(NAME Hip.${target}.RocmExample.${name}
             COMMAND ${PROJECT_BINARY_DIR}/bin/hsad-sim --target ${target} --gpus 2 -- ${out})
    set_tests_properties(Hip.${target}.RocmExample.${name} PROPERTIES LABELS hip TIMEOUT 300
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/rocm-examples
      FAIL_REGULAR_EXPRESSION "Validation failed|An error encountered|hsad-sim: queue error")
  endforeach()
endforeach()

// resnet_block: a ResNet block: two 3x3 convs with batch norm (training statistics, and inference with running statistics), ReLU, the residual, 3x3/2 max pooling; the training loss's gradient (conformance/programs/sources.py, jax 0.10.2)
module @jit_resnet_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<3x3x4x4xf32>, %arg2: tensor<3x3x4x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<4xf32>) -> (tensor<2x4x4x4xf32> {jax.result_info = "result[0]"}, tensor<2x4x4x4xf32> {jax.result_info = "result[1]"}, tensor<3x3x4x4xf32> {jax.result_info = "result[2][0]"}, tensor<3x3x4x4xf32> {jax.result_info = "result[2][1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_var(%0, %c) : (tensor<2x8x8x4xf32>, tensor<i32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %7 = stablehlo.subtract %0, %6 : tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.add %4, %8 : tensor<4xf32>
    %10 = stablehlo.rsqrt %9 : tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %13 = stablehlo.multiply %7, %12 : tensor<2x8x8x4xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %16 = stablehlo.multiply %13, %15 : tensor<2x8x8x4xf32>
    %17 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %19 = stablehlo.add %16, %18 : tensor<2x8x8x4xf32>
    %20 = call @relu(%19) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %21 = stablehlo.convolution(%20, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %24 = stablehlo.divide %22, %23 : tensor<4xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %25 = call @_var(%21, %c_4) : (tensor<2x8x8x4xf32>, tensor<i32>) -> tensor<4xf32>
    %26 = stablehlo.broadcast_in_dim %24, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %28 = stablehlo.subtract %21, %27 : tensor<2x8x8x4xf32>
    %cst_5 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %30 = stablehlo.add %25, %29 : tensor<4xf32>
    %31 = stablehlo.rsqrt %30 : tensor<4xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %34 = stablehlo.multiply %28, %33 : tensor<2x8x8x4xf32>
    %35 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %37 = stablehlo.multiply %34, %36 : tensor<2x8x8x4xf32>
    %38 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %40 = stablehlo.add %37, %39 : tensor<2x8x8x4xf32>
    %41 = stablehlo.add %40, %arg0 : tensor<2x8x8x4xf32>
    %42 = call @relu(%41) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<f32>
    %44 = "stablehlo.reduce_window"(%42, %43) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %191 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %191 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %45 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_7) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_8 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %48 = stablehlo.divide %46, %47 : tensor<4xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %49:4 = call @_var_0(%45, %c_9) : (tensor<2x8x8x4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>)
    %50 = stablehlo.broadcast_in_dim %48, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %52 = stablehlo.subtract %45, %51 : tensor<2x8x8x4xf32>
    %cst_10 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %54 = stablehlo.add %49#0, %53 : tensor<4xf32>
    %55 = stablehlo.rsqrt %54 : tensor<4xf32>
    %56 = stablehlo.divide %55, %54 : tensor<4xf32>
    %cst_11 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %58 = stablehlo.multiply %57, %56 : tensor<4xf32>
    %59 = stablehlo.broadcast_in_dim %55, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %61 = stablehlo.multiply %52, %60 : tensor<2x8x8x4xf32>
    %62 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %63 = stablehlo.broadcast_in_dim %62, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %64 = stablehlo.multiply %61, %63 : tensor<2x8x8x4xf32>
    %65 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %67 = stablehlo.add %64, %66 : tensor<2x8x8x4xf32>
    %68 = call @relu(%67) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %70 = stablehlo.compare GT, %67, %69, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %71 = stablehlo.convolution(%68, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_13) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_14 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %73 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %74 = stablehlo.divide %72, %73 : tensor<4xf32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %75:4 = call @_var_0(%71, %c_15) : (tensor<2x8x8x4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>)
    %76 = stablehlo.broadcast_in_dim %74, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %78 = stablehlo.subtract %71, %77 : tensor<2x8x8x4xf32>
    %cst_16 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %80 = stablehlo.add %75#0, %79 : tensor<4xf32>
    %81 = stablehlo.rsqrt %80 : tensor<4xf32>
    %82 = stablehlo.divide %81, %80 : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<4xf32>
    %85 = stablehlo.broadcast_in_dim %81, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %87 = stablehlo.multiply %78, %86 : tensor<2x8x8x4xf32>
    %88 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %90 = stablehlo.multiply %87, %89 : tensor<2x8x8x4xf32>
    %91 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %93 = stablehlo.add %90, %92 : tensor<2x8x8x4xf32>
    %94 = stablehlo.add %93, %arg0 : tensor<2x8x8x4xf32>
    %95 = call @relu(%94) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %97 = stablehlo.compare GT, %94, %96, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %cst_19 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<f32>
    %99 = "stablehlo.reduce_window"(%95, %98) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %191 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %191 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %cst_20 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<2x4x4x4xf32>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_22 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %102 = stablehlo.divide %cst_21, %cst_22 : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %102, dims = [] : (tensor<f32>) -> tensor<2x4x4x4xf32>
    %104 = stablehlo.multiply %103, %101 : tensor<2x4x4x4xf32>
    %cst_23 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %105 = stablehlo.pad %95, %cst_23, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x10x10x4xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %106 = "stablehlo.select_and_scatter"(%105, %104, %cst_24) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %191 = stablehlo.compare GE, %arg7, %arg8, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %191 : tensor<i1>
    }, {
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %191 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %191 : tensor<f32>
    }) : (tensor<2x10x10x4xf32>, tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x10x10x4xf32>
    %107 = stablehlo.slice %106 [0:2, 1:9, 1:9, 0:4] : (tensor<2x10x10x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %109 = stablehlo.select %97, %107, %108 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %110 = stablehlo.broadcast_in_dim %88, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %111 = stablehlo.multiply %109, %110 : tensor<2x8x8x4xf32>
    %112 = stablehlo.multiply %78, %111 : tensor<2x8x8x4xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %113 = stablehlo.reduce(%112 init: %cst_26) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %114 = stablehlo.reshape %113 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %115 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %116 = stablehlo.multiply %111, %115 : tensor<2x8x8x4xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.reduce(%114 init: %cst_27) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %118 = stablehlo.multiply %117, %84 : tensor<4xf32>
    %119 = stablehlo.negate %116 : tensor<2x8x8x4xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %120 = stablehlo.reduce(%119 init: %cst_28) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %121 = stablehlo.reshape %120 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%121 init: %cst_29) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %123 = call @_var_2(%75#1, %75#2, %75#3, %118) : (tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>, tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %124 = stablehlo.add %116, %123 : tensor<2x8x8x4xf32>
    %cst_30 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %126 = stablehlo.divide %122, %125 : tensor<4xf32>
    %127 = stablehlo.broadcast_in_dim %126, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %128 = stablehlo.add %124, %127 : tensor<2x8x8x4xf32>
    %129 = stablehlo.convolution(%68, %128) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x4x4xf32>
    %130 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x4x4xf32>
    %131 = stablehlo.convolution(%128, %130) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %133 = stablehlo.select %70, %131, %132 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %134 = stablehlo.broadcast_in_dim %62, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %135 = stablehlo.multiply %133, %134 : tensor<2x8x8x4xf32>
    %136 = stablehlo.multiply %52, %135 : tensor<2x8x8x4xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %137 = stablehlo.reduce(%136 init: %cst_32) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %138 = stablehlo.reshape %137 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %139 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %140 = stablehlo.multiply %135, %139 : tensor<2x8x8x4xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %141 = stablehlo.reduce(%138 init: %cst_33) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %142 = stablehlo.multiply %141, %58 : tensor<4xf32>
    %143 = stablehlo.negate %140 : tensor<2x8x8x4xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %144 = stablehlo.reduce(%143 init: %cst_34) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %145 = stablehlo.reshape %144 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%145 init: %cst_35) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %147 = call @_var_2(%49#1, %49#2, %49#3, %142) : (tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>, tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %148 = stablehlo.add %140, %147 : tensor<2x8x8x4xf32>
    %cst_36 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %150 = stablehlo.divide %146, %149 : tensor<4xf32>
    %151 = stablehlo.broadcast_in_dim %150, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %152 = stablehlo.add %148, %151 : tensor<2x8x8x4xf32>
    %153 = stablehlo.convolution(%arg0, %152) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x4x4xf32>
    %154 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %155 = stablehlo.broadcast_in_dim %arg5, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %156 = stablehlo.broadcast_in_dim %155, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %157 = stablehlo.subtract %154, %156 : tensor<2x8x8x4xf32>
    %cst_37 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %158 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %159 = stablehlo.add %arg6, %158 : tensor<4xf32>
    %160 = stablehlo.rsqrt %159 : tensor<4xf32>
    %161 = stablehlo.broadcast_in_dim %160, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %163 = stablehlo.multiply %157, %162 : tensor<2x8x8x4xf32>
    %164 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %166 = stablehlo.multiply %163, %165 : tensor<2x8x8x4xf32>
    %167 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %169 = stablehlo.add %166, %168 : tensor<2x8x8x4xf32>
    %170 = call @relu(%169) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %171 = stablehlo.convolution(%170, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x8x8x4xf32>
    %172 = stablehlo.broadcast_in_dim %arg5, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %174 = stablehlo.subtract %171, %173 : tensor<2x8x8x4xf32>
    %cst_38 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %176 = stablehlo.add %arg6, %175 : tensor<4xf32>
    %177 = stablehlo.rsqrt %176 : tensor<4xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %179 = stablehlo.broadcast_in_dim %178, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %180 = stablehlo.multiply %174, %179 : tensor<2x8x8x4xf32>
    %181 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %182 = stablehlo.broadcast_in_dim %181, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %183 = stablehlo.multiply %180, %182 : tensor<2x8x8x4xf32>
    %184 = stablehlo.broadcast_in_dim %arg4, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %185 = stablehlo.broadcast_in_dim %184, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %186 = stablehlo.add %183, %185 : tensor<2x8x8x4xf32>
    %187 = stablehlo.add %186, %arg0 : tensor<2x8x8x4xf32>
    %188 = call @relu(%187) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_39 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<f32>
    %190 = "stablehlo.reduce_window"(%188, %189) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %191 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %191 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    return %44, %190, %153, %129 : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<3x3x4x4xf32>, tensor<3x3x4x4xf32>
  }
  func.func private @_var(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1x1x4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x1x1x4xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x8x4xf32>
    %6 = chlo.square %5 : tensor<2x8x8x4xf32> -> tensor<2x8x8x4xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.divide %9, %10 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %13 = call @_where(%12, %11, %cst_4) : (tensor<i1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %13 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
  func.func private @_var_0(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [3] : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1x1x4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x1x1x4xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x1x1x4xf32>) -> tensor<2x8x8x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x8x8x4xf32>
    %6 = chlo.square %5 : tensor<2x8x8x4xf32> -> tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<2x8x8x4xf32>
    %9 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.divide %11, %12 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.compare GT, %10, %cst_4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = call @_where_1(%14, %13, %cst_5) : (tensor<i1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %15, %8, %10, %14 : tensor<4xf32>, tensor<2x8x8x4xf32>, tensor<f32>, tensor<i1>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @_var_2(%arg0: tensor<2x8x8x4xf32>, %arg1: tensor<f32>, %arg2: tensor<i1>, %arg3: tensor<4xf32>) -> tensor<2x8x8x4xf32> {
    %0 = call @_where_3(%arg2, %arg3) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.divide %0, %1 : tensor<4xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %4 = stablehlo.multiply %3, %arg0 : tensor<2x8x8x4xf32>
    %5 = stablehlo.negate %4 : tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.reshape %6 : (tensor<4xf32>) -> tensor<1x1x1x4xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x1x1x4xf32>
    %9 = stablehlo.divide %7, %8 : tensor<1x1x1x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [3] : (tensor<4xf32>) -> tensor<2x8x8x4xf32>
    %12 = stablehlo.add %4, %11 : tensor<2x8x8x4xf32>
    return %12 : tensor<2x8x8x4xf32>
  }
  func.func private @_where_3(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

"""Generated from the type stubs of torch 2.13.0 by
`python3 scripts/generate_torch_api.py`: do not edit.

TORCH_FUNCTIONS and TENSOR_METHODS: names whose every overload returns a Tensor.
TENSOR_INPUT_FUNCTIONS: qualified names whose every overload takes a Tensor first.
TENSOR_TUPLE_*: names whose every overload returns a tuple or list of tensors (topk);
TENSOR_OR_TUPLE_*: some overloads a tensor, the others that (max): either way, each
element of the result is a tensor.
TENSOR_ONLY_METHODS are those tensor methods, TENSOR_ONLY_CALLS any tensor member, that
numpy, pandas, nn.Module and built-in types have nothing callable by that name for;
TENSOR_ONLY_MEMBERS are the tensor members they have nothing at all by that name for.
SLICED_TENSOR_CALLS: the tensor members that numpy, nn.Module and built-in types have
nothing callable by that name for, pandas aside: what ``x[:, 5].unique()`` says of ``x``
(no pandas object takes a tuple of slices as an index).
COMPUTED_TENSOR_METHODS: the tensor methods that numpy, pandas and built-in types have
nothing callable by that name for, modules aside: on what an operator computes
(``(pred == y).float()``), which is never a module.
DEPRECATED_INIT_FUNCTIONS: nn.init's old names without the underscore (``init.normal``),
which write their tensor in place as the new ones do.
MODULE_SELF_METHODS: the nn.Module methods that return the module itself (``.to``, ``.cuda``).
DISTRIBUTIONS: the ``torch.distributions`` classes (qualified names);
DISTRIBUTION_TENSOR_METHODS and _PROPERTIES: what every distribution gives as a tensor.
NUMPY_TENSOR_UFUNCS: numpy 2.4.6's ufuncs (``numpy.exp``) that give a tensor back
when applied to CPU tensors (``Tensor.__array_wrap__``); on CUDA they raise.
"""

TORCH_FUNCTIONS = frozenset(
    """
    abs abs_ absolute acos acos_ acosh acosh_ adaptive_avg_pool1d add addbmm addcdiv
    addcmul addmm addmv addmv_ addr adjoint affine_grid_generator alias_copy all
    alpha_dropout alpha_dropout_ amax amin angle any arange arccos arccos_ arccosh
    arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan_ arctanh arctanh_
    argmax argmin argsort argwhere as_strided as_strided_ as_strided_copy
    as_strided_scatter as_tensor asarray asin asin_ asinh asinh_ atan atan2 atan_ atanh
    atanh_ avg_pool1d baddbmm bartlett_window batch_norm batch_norm_backward_elemt
    batch_norm_elemt bernoulli bilinear binary_cross_entropy_with_logits bincount
    binomial bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
    bitwise_xor blackman_window bmm broadcast_to bucketize cartesian_prod cat
    ccol_indices_copy cdist ceil ceil_ celu celu_ channel_shuffle cholesky
    cholesky_inverse cholesky_solve clamp clamp_ clamp_max clamp_max_ clamp_min
    clamp_min_ clip clip_ clone col_indices_copy column_stack combinations complex
    concat concatenate conj conj_physical conj_physical_ constant_pad_nd conv1d conv2d
    conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d convolution
    copysign corrcoef cos cos_ cosh cosh_ cosine_embedding_loss cosine_similarity
    count_nonzero cov cross crow_indices_copy ctc_loss cudnn_affine_grid_generator
    cudnn_convolution cudnn_convolution_add_relu cudnn_convolution_relu
    cudnn_convolution_transpose cudnn_grid_sampler cumprod cumsum cumulative_trapezoid
    deg2rad deg2rad_ det detach detach_ detach_copy diag diag_embed diagflat diagonal
    diagonal_copy diagonal_scatter diff digamma dist div divide dot dropout dropout_
    dsmm dstack einsum embedding embedding_renorm_ empty empty_like empty_permuted
    empty_quantized empty_strided eq erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_
    expand_copy expm1 expm1_ eye fake_quantize_per_channel_affine
    fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight
    fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
    fbgemm_linear_int8_weight_fp32_activation fbgemm_pack_gemm_matrix_fp16
    fbgemm_pack_quantized_matrix feature_alpha_dropout feature_alpha_dropout_
    feature_dropout feature_dropout_ fill fill_ fix fix_ flatten flip fliplr flipud
    float_power floor floor_ floor_divide fmax fmin fmod frac frac_ frobenius_norm
    from_file from_numpy frombuffer full full_like fused_moving_avg_obs_fake_quant
    gather gcd gcd_ ge ger greater greater_equal grid_sampler grid_sampler_2d
    grid_sampler_3d group_norm gru_cell gt hamming_window hann_window hardshrink
    hash_tensor heaviside hinge_embedding_loss histc hsmm hspmm hstack hypot i0 i0_
    igamma igammac imag index_add index_copy index_fill index_put index_put_
    index_reduce index_select indices_copy inner instance_norm int_repr inverse isclose
    isfinite isin isinf isnan isneginf isposinf isreal istft kaiser_window kl_div kron
    layer_norm lcm lcm_ ldexp ldexp_ le lerp less less_equal lgamma linspace log log10
    log10_ log1p log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2 logcumsumexp
    logdet logical_and logical_not logical_or logical_xor logit logit_ logspace
    logsumexp lt lu_solve margin_ranking_loss masked_fill masked_scatter masked_select
    matmul matrix_exp matrix_power max_pool1d max_pool2d max_pool3d maximum mean
    minimum miopen_convolution miopen_convolution_add_relu miopen_convolution_relu
    miopen_convolution_transpose miopen_depthwise_convolution
    mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_max_pool2d mkldnn_max_pool3d
    mm moveaxis movedim msort mul multinomial multiply mv mvlgamma nan_to_num
    nan_to_num_ nanmean nanquantile nansum narrow narrow_copy native_channel_shuffle
    native_norm ne neg neg_ negative negative_ nextafter nonzero_static norm
    norm_except_dim normal not_equal nuclear_norm ones ones_like orgqr ormqr outer
    pairwise_distance pdist permute permute_copy pinverse pixel_shuffle pixel_unshuffle
    poisson poisson_nll_loss polar polygamma positive pow prelu prod put
    q_per_channel_scales q_per_channel_zero_points quantile quantize_per_channel
    quantize_per_tensor_dynamic quantized_batch_norm quantized_gru_cell
    quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d
    quantized_rnn_relu_cell quantized_rnn_tanh_cell rad2deg rad2deg_ rand rand_like
    randint randint_like randn randn_like randperm range ravel real reciprocal
    reciprocal_ relu relu_ remainder renorm repeat_interleave reshape resize_as_
    resize_as_sparse_ resolve_conj resolve_neg rms_norm rnn_relu_cell rnn_tanh_cell
    roll rot90 round round_ row_indices_copy row_stack rrelu rrelu_ rsqrt rsqrt_ rsub
    saddmm scalar_tensor scatter scatter_add scatter_reduce searchsorted segment_reduce
    select select_copy select_scatter selu selu_ sgn sigmoid sigmoid_ sign signbit sin
    sin_ sinc sinc_ sinh sinh_ slice_copy slice_inverse slice_scatter smm softmax
    sparse_bsc_tensor sparse_bsr_tensor sparse_compressed_tensor sparse_coo_tensor
    sparse_csc_tensor sparse_csr_tensor spmm sqrt sqrt_ square square_ squeeze
    squeeze_copy sspaddmm stack std stft sub subtract sum swapaxes swapdims t t_copy
    take take_along_dim tan tan_ tanh tanh_ tensor threshold threshold_ tile trace
    transpose transpose_copy trapezoid trapz tril tril_indices triplet_margin_loss triu
    triu_indices true_divide trunc trunc_ unflatten unfold_copy unsqueeze
    unsqueeze_copy values_copy vander var vdot view_as_complex view_as_complex_copy
    view_as_real view_as_real_copy view_copy vstack xlogy xlogy_ zero_ zeros zeros_like
    """.split()
)
TENSOR_INPUT_FUNCTIONS = frozenset(
    """
    torch.abs torch.abs_ torch.absolute torch.acos torch.acos_ torch.acosh torch.acosh_
    torch.adaptive_avg_pool1d torch.adaptive_max_pool1d torch.addcdiv torch.addcmul
    torch.adjoint torch.affine_grid_generator torch.alias_copy torch.all torch.allclose
    torch.alpha_dropout torch.alpha_dropout_ torch.amax torch.amin torch.aminmax
    torch.angle torch.any torch.arccos torch.arccos_ torch.arccosh torch.arccosh_
    torch.arcsin torch.arcsin_ torch.arcsinh torch.arcsinh_ torch.arctan torch.arctan2
    torch.arctan_ torch.arctanh torch.arctanh_ torch.argmax torch.argmin torch.argsort
    torch.argwhere torch.as_strided torch.as_strided_ torch.as_strided_copy
    torch.as_strided_scatter torch.asin torch.asin_ torch.asinh torch.asinh_ torch.atan
    torch.atan2 torch.atan_ torch.atanh torch.atanh_ torch.avg_pool1d torch.batch_norm
    torch.batch_norm_backward_elemt torch.batch_norm_backward_reduce
    torch.batch_norm_elemt torch.batch_norm_gather_stats
    torch.batch_norm_gather_stats_with_counts torch.batch_norm_stats
    torch.batch_norm_update_stats torch.bernoulli torch.bilinear
    torch.binary_cross_entropy_with_logits torch.bincount torch.binomial
    torch.bitwise_not torch.bmm torch.broadcast_to torch.ccol_indices_copy torch.cdist
    torch.ceil torch.ceil_ torch.celu torch.celu_ torch.channel_shuffle torch.cholesky
    torch.cholesky_inverse torch.cholesky_solve torch.choose_qparams_optimized
    torch.chunk torch.clamp torch.clamp_ torch.clamp_max torch.clamp_max_
    torch.clamp_min torch.clamp_min_ torch.clip torch.clip_ torch.clone
    torch.col_indices_copy torch.combinations torch.complex torch.conj
    torch.conj_physical torch.conj_physical_ torch.constant_pad_nd torch.conv1d
    torch.conv2d torch.conv3d torch.conv_tbc torch.conv_transpose1d
    torch.conv_transpose2d torch.conv_transpose3d torch.convolution torch.copysign
    torch.corrcoef torch.cos torch.cos_ torch.cosh torch.cosh_
    torch.cosine_embedding_loss torch.cosine_similarity torch.count_nonzero torch.cov
    torch.cross torch.crow_indices_copy torch.ctc_loss
    torch.cudnn_affine_grid_generator torch.cudnn_batch_norm torch.cudnn_convolution
    torch.cudnn_convolution_add_relu torch.cudnn_convolution_relu
    torch.cudnn_convolution_transpose torch.cudnn_grid_sampler
    torch.cudnn_is_acceptable torch.cummax torch.cummin torch.cumprod torch.cumsum
    torch.cumulative_trapezoid torch.deg2rad torch.deg2rad_ torch.det torch.detach
    torch.detach_ torch.detach_copy torch.diag torch.diag_embed torch.diagflat
    torch.diagonal torch.diagonal_copy torch.diagonal_scatter torch.diff torch.digamma
    torch.dist torch.divide torch.dot torch.dropout torch.dropout_ torch.dsmm
    torch.dsplit torch.embedding torch.embedding_bag torch.embedding_renorm_
    torch.empty_like torch.eq torch.equal torch.erf torch.erf_ torch.erfc torch.erfc_
    torch.erfinv torch.exp torch.exp2 torch.exp2_ torch.exp_ torch.expand_copy
    torch.expm1 torch.expm1_ torch.fake_quantize_per_channel_affine
    torch.fake_quantize_per_tensor_affine torch.fbgemm_linear_fp16_weight
    torch.fbgemm_linear_fp16_weight_fp32_activation torch.fbgemm_linear_int8_weight
    torch.fbgemm_linear_int8_weight_fp32_activation torch.fbgemm_linear_quantize_weight
    torch.fbgemm_pack_gemm_matrix_fp16 torch.fbgemm_pack_quantized_matrix
    torch.feature_alpha_dropout torch.feature_alpha_dropout_ torch.feature_dropout
    torch.feature_dropout_ torch.fill torch.fill_ torch.fix torch.fix_ torch.flatten
    torch.flip torch.fliplr torch.flipud torch.floor torch.floor_ torch.fmax torch.fmin
    torch.fmod torch.frac torch.frac_ torch.frexp torch.frobenius_norm torch.full_like
    torch.fused_moving_avg_obs_fake_quant torch.gather torch.gcd torch.gcd_ torch.ge
    torch.geqrf torch.ger torch.gradient torch.greater torch.greater_equal
    torch.grid_sampler torch.grid_sampler_2d torch.grid_sampler_3d torch.group_norm
    torch.gru torch.gru_cell torch.gt torch.hardshrink torch.hash_tensor
    torch.heaviside torch.hinge_embedding_loss torch.histc torch.histogram
    torch.histogramdd torch.hsmm torch.hsplit torch.hspmm torch.hypot torch.i0
    torch.i0_ torch.igamma torch.igammac torch.imag torch.index_add torch.index_copy
    torch.index_fill torch.index_put torch.index_put_ torch.index_reduce
    torch.index_select torch.indices_copy torch.inner torch.instance_norm
    torch.int_repr torch.inverse torch.is_complex torch.is_conj torch.is_distributed
    torch.is_floating_point torch.is_inference torch.is_neg torch.is_nonzero
    torch.is_same_size torch.is_signed torch.isclose torch.isfinite torch.isinf
    torch.isnan torch.isneginf torch.isposinf torch.isreal torch.istft torch.kl_div
    torch.kron torch.kthvalue torch.layer_norm torch.lcm torch.lcm_ torch.ldexp
    torch.ldexp_ torch.le torch.lerp torch.less torch.less_equal torch.lgamma torch.log
    torch.log10 torch.log10_ torch.log1p torch.log1p_ torch.log2 torch.log2_ torch.log_
    torch.log_softmax torch.logaddexp torch.logaddexp2 torch.logcumsumexp torch.logdet
    torch.logical_and torch.logical_not torch.logical_or torch.logical_xor torch.logit
    torch.logit_ torch.logsumexp torch.lstm torch.lstm_cell torch.lt torch.lu_solve
    torch.lu_unpack torch.margin_ranking_loss torch.masked_fill torch.masked_scatter
    torch.masked_select torch.matmul torch.matrix_exp torch.matrix_power torch.max
    torch.max_pool1d torch.max_pool1d_with_indices torch.max_pool2d torch.max_pool3d
    torch.maximum torch.mean torch.median torch.min torch.minimum
    torch.miopen_batch_norm torch.miopen_convolution torch.miopen_convolution_add_relu
    torch.miopen_convolution_relu torch.miopen_convolution_transpose
    torch.miopen_ctc_loss torch.miopen_depthwise_convolution torch.miopen_rnn
    torch.mkldnn_adaptive_avg_pool2d torch.mkldnn_convolution
    torch.mkldnn_linear_backward_weights torch.mkldnn_max_pool2d
    torch.mkldnn_max_pool3d torch.mkldnn_rnn_layer torch.mm torch.mode torch.moveaxis
    torch.movedim torch.msort torch.multinomial torch.multiply torch.mv torch.mvlgamma
    torch.nan_to_num torch.nan_to_num_ torch.nanmean torch.nanmedian torch.nanquantile
    torch.nansum torch.narrow torch.narrow_copy torch.native_batch_norm
    torch.native_channel_shuffle torch.native_dropout torch.native_group_norm
    torch.native_layer_norm torch.native_norm torch.ne torch.neg torch.neg_
    torch.negative torch.negative_ torch.nextafter
    torch.nn.functional.adaptive_avg_pool2d torch.nn.functional.adaptive_avg_pool3d
    torch.nn.functional.adaptive_max_pool1d
    torch.nn.functional.adaptive_max_pool1d_with_indices
    torch.nn.functional.adaptive_max_pool2d
    torch.nn.functional.adaptive_max_pool2d_with_indices
    torch.nn.functional.adaptive_max_pool3d
    torch.nn.functional.adaptive_max_pool3d_with_indices
    torch.nn.functional.affine_grid torch.nn.functional.alpha_dropout
    torch.nn.functional.batch_norm torch.nn.functional.binary_cross_entropy
    torch.nn.functional.binary_cross_entropy_with_logits torch.nn.functional.celu
    torch.nn.functional.cosine_embedding_loss torch.nn.functional.cross_entropy
    torch.nn.functional.ctc_loss torch.nn.functional.dropout
    torch.nn.functional.dropout1d torch.nn.functional.dropout2d
    torch.nn.functional.dropout3d torch.nn.functional.elu torch.nn.functional.embedding
    torch.nn.functional.embedding_bag torch.nn.functional.feature_alpha_dropout
    torch.nn.functional.fold torch.nn.functional.fractional_max_pool2d
    torch.nn.functional.fractional_max_pool2d_with_indices
    torch.nn.functional.fractional_max_pool3d
    torch.nn.functional.fractional_max_pool3d_with_indices
    torch.nn.functional.gaussian_nll_loss torch.nn.functional.glu
    torch.nn.functional.grid_sample torch.nn.functional.group_norm
    torch.nn.functional.grouped_mm torch.nn.functional.gumbel_softmax
    torch.nn.functional.hardsigmoid torch.nn.functional.hardswish
    torch.nn.functional.hardtanh torch.nn.functional.hinge_embedding_loss
    torch.nn.functional.huber_loss torch.nn.functional.instance_norm
    torch.nn.functional.interpolate torch.nn.functional.kl_div
    torch.nn.functional.l1_loss torch.nn.functional.layer_norm
    torch.nn.functional.leaky_relu torch.nn.functional.linear_cross_entropy
    torch.nn.functional.local_response_norm torch.nn.functional.log_softmax
    torch.nn.functional.lp_pool1d torch.nn.functional.lp_pool2d
    torch.nn.functional.lp_pool3d torch.nn.functional.margin_ranking_loss
    torch.nn.functional.max_pool1d torch.nn.functional.max_pool1d_with_indices
    torch.nn.functional.max_pool2d torch.nn.functional.max_pool2d_with_indices
    torch.nn.functional.max_pool3d torch.nn.functional.max_pool3d_with_indices
    torch.nn.functional.max_unpool1d torch.nn.functional.max_unpool2d
    torch.nn.functional.max_unpool3d torch.nn.functional.mish
    torch.nn.functional.mse_loss torch.nn.functional.multi_head_attention_forward
    torch.nn.functional.multi_margin_loss torch.nn.functional.multilabel_margin_loss
    torch.nn.functional.multilabel_soft_margin_loss torch.nn.functional.nll_loss
    torch.nn.functional.normalize torch.nn.functional.poisson_nll_loss
    torch.nn.functional.relu torch.nn.functional.relu6 torch.nn.functional.rms_norm
    torch.nn.functional.rrelu torch.nn.functional.scaled_mm torch.nn.functional.selu
    torch.nn.functional.sigmoid torch.nn.functional.silu
    torch.nn.functional.smooth_l1_loss torch.nn.functional.soft_margin_loss
    torch.nn.functional.softmax torch.nn.functional.softmin
    torch.nn.functional.threshold torch.nn.functional.triplet_margin_loss
    torch.nn.functional.triplet_margin_with_distance_loss torch.nn.functional.unfold
    torch.nonzero torch.nonzero_static torch.norm torch.norm_except_dim torch.not_equal
    torch.nuclear_norm torch.numel torch.ones_like torch.orgqr torch.ormqr torch.outer
    torch.pairwise_distance torch.pdist torch.permute torch.permute_copy torch.pinverse
    torch.pixel_shuffle torch.pixel_unshuffle torch.poisson torch.poisson_nll_loss
    torch.polar torch.positive torch.prelu torch.prod torch.put
    torch.q_per_channel_axis torch.q_per_channel_scales torch.q_per_channel_zero_points
    torch.q_scale torch.q_zero_point torch.qr torch.quantile torch.quantize_per_channel
    torch.quantize_per_tensor_dynamic torch.quantized_batch_norm
    torch.quantized_gru_cell torch.quantized_lstm_cell torch.quantized_max_pool1d
    torch.quantized_max_pool2d torch.quantized_max_pool3d torch.quantized_rnn_relu_cell
    torch.quantized_rnn_tanh_cell torch.rad2deg torch.rad2deg_ torch.rand_like
    torch.randint_like torch.randn_like torch.ravel torch.real torch.reciprocal
    torch.reciprocal_ torch.relu torch.relu_ torch.renorm torch.repeat_interleave
    torch.reshape torch.resize_as_ torch.resize_as_sparse_ torch.resolve_conj
    torch.resolve_neg torch.rms_norm torch.rnn_relu torch.rnn_relu_cell torch.rnn_tanh
    torch.rnn_tanh_cell torch.roll torch.rot90 torch.round torch.round_
    torch.row_indices_copy torch.rrelu torch.rrelu_ torch.rsqrt torch.rsqrt_ torch.rsub
    torch.saddmm torch.scatter torch.scatter_add torch.scatter_reduce
    torch.searchsorted torch.segment_reduce torch.select torch.select_copy
    torch.select_scatter torch.selu torch.selu_ torch.sgn torch.sigmoid torch.sigmoid_
    torch.sign torch.signbit torch.sin torch.sin_ torch.sinc torch.sinc_ torch.sinh
    torch.sinh_ torch.slice_copy torch.slice_inverse torch.slice_scatter torch.slogdet
    torch.smm torch.softmax torch.sort torch.sparse_coo_tensor torch.split
    torch.split_copy torch.split_with_sizes torch.split_with_sizes_copy torch.spmm
    torch.sqrt torch.sqrt_ torch.square torch.square_ torch.squeeze torch.squeeze_copy
    torch.std torch.std_mean torch.stft torch.subtract torch.sum torch.svd
    torch.swapaxes torch.swapdims torch.t torch.t_copy torch.take torch.take_along_dim
    torch.tan torch.tan_ torch.tanh torch.tanh_ torch.tensor_split torch.threshold
    torch.threshold_ torch.tile torch.topk torch.trace torch.transpose
    torch.transpose_copy torch.trapezoid torch.trapz torch.triangular_solve torch.tril
    torch.triplet_margin_loss torch.triu torch.trunc torch.trunc_ torch.unbind
    torch.unbind_copy torch.unflatten torch.unfold_copy torch.unique_dim
    torch.unravel_index torch.unsafe_chunk torch.unsafe_split
    torch.unsafe_split_with_sizes torch.unsqueeze torch.unsqueeze_copy
    torch.values_copy torch.vander torch.var torch.var_mean torch.vdot
    torch.view_as_complex torch.view_as_complex_copy torch.view_as_real
    torch.view_as_real_copy torch.view_copy torch.vsplit torch.where torch.xlogy_
    torch.zero_ torch.zeros_like
    """.split()
)
TENSOR_METHODS = frozenset(
    """
    abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all amax
    amin angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
    arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort
    argwhere as_strided as_strided_ as_strided_scatter asin asin_ asinh asinh_ atan
    atan2 atan2_ atan_ atanh atanh_ baddbmm baddbmm_ bernoulli bernoulli_ bfloat16
    bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_
    bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
    bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte cauchy_
    ccol_indices ceil ceil_ chalf char cholesky cholesky_inverse cholesky_solve clamp
    clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone coalesce
    col_indices conj conj_physical conj_physical_ contiguous copy_ copysign copysign_
    corrcoef cos cos_ cosh cosh_ count_nonzero cov cpu cross crow_indices cuda cumprod
    cumprod_ cumsum cumsum_ deg2rad deg2rad_ dequantize det detach detach_ diag
    diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dist div div_
    divide divide_ dot double eq eq_ erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_
    exp_ expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_
    flatten flip fliplr flipud float float_power float_power_ floor floor_ floor_divide
    floor_divide_ fmax fmin fmod fmod_ frac frac_ gather gcd gcd_ ge ge_ geometric_ ger
    greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor
    heaviside heaviside_ histc hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_
    index_add index_add_ index_copy index_copy_ index_fill index_fill_ index_put
    index_put_ index_reduce index_reduce_ index_select indices inner int int_repr
    inverse isclose isfinite isinf isnan isneginf isposinf isreal istft kron lcm lcm_
    ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log
    log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp
    logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not logical_not_
    logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lt lt_
    lu_solve map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_
    masked_select matmul matrix_exp matrix_power maximum mean minimum mm moveaxis
    movedim msort mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_
    nan_to_num nan_to_num_ nanmean nanquantile nansum narrow narrow_copy ne ne_ neg
    neg_ negative negative_ new_empty new_empty_strided new_full new_ones new_tensor
    new_zeros nextafter nextafter_ nonzero_static normal_ not_equal not_equal_ orgqr
    ormqr outer permute pin_memory pinverse polygamma polygamma_ positive pow pow_
    prelu prod put put_ q_per_channel_scales q_per_channel_zero_points quantile rad2deg
    rad2deg_ random_ ravel reciprocal reciprocal_ relu relu_ remainder remainder_
    renorm renorm_ repeat repeat_interleave requires_grad_ reshape reshape_as resize_
    resize_as_ resize_as_sparse_ resolve_conj resolve_neg roll rot90 round round_
    row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce
    scatter_reduce_ select select_scatter set_ sgn sgn_ short sigmoid sigmoid_ sign
    sign_ signbit sin sin_ sinc sinc_ sinh sinh_ slice_inverse slice_scatter smm
    softmax sparse_mask sparse_resize_ sparse_resize_and_clear_ sqrt sqrt_ square
    square_ squeeze squeeze_ sspaddmm std sub sub_ subtract subtract_ sum sum_to_size
    swapaxes swapaxes_ swapdims swapdims_ t t_ take take_along_dim tan tan_ tanh tanh_
    tile to to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr
    to_sparse_csc to_sparse_csr trace transpose transpose_ tril tril_ triu triu_
    true_divide true_divide_ trunc trunc_ type_as unflatten unfold uniform_ unsqueeze
    unsqueeze_ values var vdot view view_as where xlogy xlogy_ xpu zero_
    """.split()
)
TENSOR_TUPLE_FUNCTIONS = frozenset(
    """
    adaptive_max_pool1d aminmax batch_norm_backward_reduce batch_norm_gather_stats
    batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats
    choose_qparams_optimized chunk cudnn_batch_norm cummax cummin dsplit embedding_bag
    frexp geqrf gradient gru histogram hsplit kthvalue lstm lstm_cell lu_unpack
    max_pool1d_with_indices meshgrid miopen_batch_norm miopen_ctc_loss miopen_rnn
    mkldnn_linear_backward_weights mkldnn_rnn_layer mode native_batch_norm
    native_dropout native_group_norm native_layer_norm qr quantized_lstm_cell rnn_relu
    rnn_tanh slogdet sort split split_with_sizes std_mean svd tensor_split topk
    triangular_solve unbind unique_dim unravel_index unsafe_chunk unsafe_split
    unsafe_split_with_sizes var_mean vsplit
    """.split()
)
TENSOR_OR_TUPLE_FUNCTIONS = frozenset(
    """
    dequantize max median min nanmedian nonzero quantize_per_tensor where
    """.split()
)
TENSOR_TUPLE_METHODS = frozenset(
    """
    aminmax chunk cummax cummin dsplit frexp geqrf histogram hsplit kthvalue mode qr
    slogdet sort split split_with_sizes svd tensor_split topk triangular_solve unbind
    unsafe_chunk unsafe_split unsafe_split_with_sizes vsplit
    """.split()
)
TENSOR_OR_TUPLE_METHODS = frozenset(
    """
    max median min nanmedian nonzero
    """.split()
)
TENSOR_ONLY_METHODS = frozenset(
    """
    abs_ absolute absolute_ acos acos_ acosh acosh_ add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint amax amin
    angle apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
    arctan2 arctan2_ arctan_ arctanh arctanh_ argwhere as_strided as_strided_
    as_strided_scatter asin asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_
    baddbmm baddbmm_ bernoulli bernoulli_ bincount bitwise_and bitwise_and_
    bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or
    bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm
    bool broadcast_to byte cauchy_ ccol_indices ceil ceil_ chalf char cholesky
    cholesky_inverse cholesky_solve clamp clamp_ clamp_max clamp_max_ clamp_min
    clamp_min_ clip_ clone coalesce col_indices conj_physical conj_physical_ contiguous
    copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cross
    crow_indices cumprod_ cumsum_ deg2rad deg2rad_ dequantize det detach detach_ diag
    diag_embed diagflat diagonal_scatter digamma digamma_ dist div_ divide_ eq_ erf
    erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_
    exponential_ fill_ fill_diagonal_ fix fix_ flip fliplr flipud float_power
    float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac
    frac_ gather gcd gcd_ ge_ geometric_ ger greater greater_ greater_equal
    greater_equal_ gt_ hardshrink hash_tensor heaviside heaviside_ histc hypot hypot_
    i0 i0_ igamma igamma_ igammac igammac_ index_add index_add_ index_copy index_copy_
    index_fill index_fill_ index_put index_put_ index_reduce index_reduce_ index_select
    inner int int_repr inverse isclose isfinite isinf isnan isneginf isposinf isreal
    istft kron lcm lcm_ ldexp ldexp_ le_ lerp lerp_ less less_ less_equal less_equal_
    lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_
    log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_
    logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit
    logit_ logsumexp long lt_ lu_solve map2_ map_ masked_fill masked_fill_
    masked_scatter masked_scatter_ masked_select matmul matrix_exp matrix_power maximum
    minimum mm moveaxis movedim msort mul_ multinomial multiply_ mv mvlgamma mvlgamma_
    nan_to_num nan_to_num_ nanmean nanquantile nansum narrow narrow_copy ne_ neg neg_
    negative negative_ new_empty new_empty_strided new_full new_ones new_tensor
    new_zeros nextafter nextafter_ nonzero_static normal_ not_equal not_equal_ orgqr
    ormqr outer permute pin_memory pinverse polygamma polygamma_ positive pow_ prelu
    put_ q_per_channel_scales q_per_channel_zero_points rad2deg rad2deg_ random_
    reciprocal reciprocal_ relu relu_ remainder remainder_ renorm renorm_
    repeat_interleave reshape_as resize_ resize_as_ resize_as_sparse_ resolve_conj
    resolve_neg roll rot90 round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add
    scatter_add_ scatter_reduce scatter_reduce_ select_scatter set_ sgn sgn_ short
    sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ slice_inverse
    slice_scatter smm softmax sparse_mask sparse_resize_ sparse_resize_and_clear_ sqrt
    sqrt_ square square_ squeeze_ sspaddmm sub_ subtract_ sum_to_size swapaxes_
    swapdims swapdims_ t t_ take_along_dim tan tan_ tanh tanh_ tile to_dense to_mkldnn
    to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_csc to_sparse_csr
    transpose_ tril tril_ triu triu_ true_divide true_divide_ trunc trunc_ type_as
    unflatten unfold uniform_ unsqueeze unsqueeze_ vdot view_as xlogy xlogy_ zero_
    """.split()
)
TENSOR_ONLY_CALLS = frozenset(
    """
    H T abs_ absolute absolute_ acos acos_ acosh acosh_ add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint allclose
    amax amin aminmax angle apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_
    arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan
    atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_
    bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_
    bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
    bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte cauchy_
    ccol_indices ceil ceil_ chalf char cholesky cholesky_inverse cholesky_solve chunk
    clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip_ clone coalesce
    col_indices conj_physical conj_physical_ contiguous copy_ copysign copysign_
    corrcoef cos cos_ cosh cosh_ count_nonzero cross crow_indices cumprod_ cumsum_
    data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ diag diag_embed
    diagflat diagonal_scatter digamma digamma_ dim dim_order dist div_ divide_ dsplit
    eig element_size eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_
    expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flip
    fliplr flipud float_power float_power_ floor floor_ floor_divide floor_divide_ fmax
    fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge_ geometric_ geqrf ger
    get_device grad grad_dtype grad_fn greater greater_ greater_equal greater_equal_
    gt_ hardshrink hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_
    i0 i0_ igamma igamma_ igammac igammac_ imag index_add index_add_ index_copy
    index_copy_ index_fill index_fill_ index_put index_put_ index_reduce index_reduce_
    index_select inner int int_repr inverse is_coalesced is_complex is_conj
    is_contiguous is_cpu is_cuda is_distributed is_floating_point is_inference is_ipu
    is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero
    is_pinned is_quantized is_same_size is_set_to is_shared is_signed is_sparse
    is_sparse_csr is_vulkan is_xpu isclose isfinite isinf isnan isneginf isposinf
    isreal istft itemsize kron kthvalue lcm lcm_ ldexp ldexp_ le_ lerp lerp_ less less_
    less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_
    log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
    logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor
    logical_xor_ logit logit_ logsumexp long lstsq lt_ lu lu_solve mH mT map2_ map_
    masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul
    matrix_exp matrix_power maximum minimum mm module_load moveaxis movedim msort mul_
    multinomial multiply_ mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean
    nanmedian nanquantile nansum narrow narrow_copy nbytes ndim ndimension ne_ neg neg_
    negative negative_ nelement new new_empty new_empty_strided new_full new_ones
    new_tensor new_zeros nextafter nextafter_ nonzero_static norm normal_ not_equal
    not_equal_ numel numpy orgqr ormqr outer output_nr permute pin_memory pinverse
    polygamma polygamma_ positive pow_ prelu put_ q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr qscheme
    rad2deg rad2deg_ random_ real reciprocal reciprocal_ record_stream register_hook
    register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_ renorm
    renorm_ repeat_interleave requires_grad reshape_as resize_ resize_as resize_as_
    resize_as_sparse_ resolve_conj resolve_neg retain_grad retains_grad roll rot90
    round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ select_scatter set_ sgn sgn_ share_memory_ short
    sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ slice_inverse
    slice_scatter slogdet smm softmax solve sparse_dim sparse_mask sparse_resize_
    sparse_resize_and_clear_ split_with_sizes sqrt sqrt_ square square_ squeeze_
    sspaddmm stft storage storage_offset storage_type stride sub_ subtract_ sum_to_size
    svd swapaxes_ swapdims swapdims_ symeig t t_ take_along_dim tan tan_ tanh tanh_
    tensor_split tile to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc
    to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr topk transpose_
    triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc trunc_
    type_as unbind unflatten unfold uniform_ unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage vdot
    view_as vsplit xlogy xlogy_ zero_
    """.split()
)
TENSOR_ONLY_MEMBERS = frozenset(
    """
    abs_ absolute absolute_ acos acos_ acosh acosh_ add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint allclose
    amax amin aminmax angle apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_
    arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan
    atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_
    bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_
    bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
    bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte cauchy_
    ccol_indices ceil ceil_ chalf char cholesky cholesky_inverse cholesky_solve chunk
    clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip_ clone coalesce
    col_indices conj_physical conj_physical_ copy_ copysign copysign_ corrcoef cos cos_
    cosh cosh_ count_nonzero cross crow_indices cumprod_ cumsum_ data_ptr deg2rad
    deg2rad_ dense_dim dequantize det detach detach_ diag diag_embed diagflat
    diagonal_scatter digamma digamma_ dim dim_order dist div_ divide_ dsplit eig
    element_size eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_
    expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flip
    fliplr flipud float_power float_power_ floor floor_ floor_divide floor_divide_ fmax
    fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge_ geometric_ geqrf ger
    get_device grad grad_dtype grad_fn greater greater_ greater_equal greater_equal_
    gt_ hardshrink hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_
    i0 i0_ igamma igamma_ igammac igammac_ index_add index_add_ index_copy index_copy_
    index_fill index_fill_ index_put index_put_ index_reduce index_reduce_ index_select
    inner int int_repr inverse is_coalesced is_complex is_conj is_contiguous is_cpu
    is_cuda is_distributed is_floating_point is_inference is_ipu is_leaf is_maia
    is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized
    is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xpu
    isclose isfinite isinf isnan isneginf isposinf isreal istft kron kthvalue lcm lcm_
    ldexp ldexp_ le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log
    log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp
    logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not logical_not_
    logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq
    lt_ lu lu_solve mH map2_ map_ masked_fill masked_fill_ masked_scatter
    masked_scatter_ masked_select matmul matrix_exp matrix_power maximum minimum mm
    module_load moveaxis movedim msort mul_ multinomial multiply_ mv mvlgamma mvlgamma_
    nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy
    ndimension ne_ neg neg_ negative negative_ nelement new new_empty new_empty_strided
    new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero_static norm
    normal_ not_equal not_equal_ numel numpy orgqr ormqr outer output_nr permute
    pin_memory pinverse polygamma polygamma_ positive pow_ prelu put_
    q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale
    q_zero_point qr qscheme rad2deg rad2deg_ random_ reciprocal reciprocal_
    record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
    remainder remainder_ renorm renorm_ repeat_interleave requires_grad reshape_as
    resize_ resize_as resize_as_ resize_as_sparse_ resolve_conj resolve_neg retain_grad
    retains_grad roll rot90 round_ row_indices rsqrt rsqrt_ scatter scatter_
    scatter_add scatter_add_ scatter_reduce scatter_reduce_ select_scatter set_ sgn
    sgn_ share_memory_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_
    sinh sinh_ slice_inverse slice_scatter slogdet smm softmax solve sparse_dim
    sparse_mask sparse_resize_ sparse_resize_and_clear_ split_with_sizes sqrt sqrt_
    square square_ squeeze_ sspaddmm stft storage storage_offset storage_type sub_
    subtract_ sum_to_size svd swapaxes_ swapdims swapdims_ symeig t t_ take_along_dim
    tan tan_ tanh tanh_ tensor_split tile to_dense to_mkldnn to_padded_tensor to_sparse
    to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr topk
    transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc
    trunc_ type_as unbind unflatten unfold uniform_ unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage vdot
    view_as vsplit xlogy xlogy_ zero_
    """.split()
)
SLICED_TENSOR_CALLS = frozenset(
    """
    H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint allclose
    amax amin aminmax angle apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_
    arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan
    atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_
    bincount bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_
    bitwise_not bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift
    bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte cauchy_
    ccol_indices ceil ceil_ chalf char cholesky cholesky_inverse cholesky_solve chunk
    clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip_ clone coalesce
    col_indices conj_physical conj_physical_ contiguous copy_ copysign copysign_
    corrcoef cos cos_ cosh cosh_ count_nonzero cov cross crow_indices cummax cummin
    cumprod_ cumsum_ data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_
    diag diag_embed diagflat diagonal_scatter diff digamma digamma_ dim dim_order dist
    div div_ divide divide_ dsplit eig element_size eq eq_ equal erf erf_ erfc erfc_
    erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_ exponential_ fill_
    fill_diagonal_ fix fix_ flip fliplr flipud float_power float_power_ floor floor_
    floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge
    ge_ geometric_ geqrf ger get_device grad grad_dtype grad_fn greater greater_
    greater_equal greater_equal_ gt gt_ hardshrink hash_tensor heaviside heaviside_
    histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag
    index_add index_add_ index_copy index_copy_ index_fill index_fill_ index_put
    index_put_ index_reduce index_reduce_ index_select inner int int_repr inverse
    is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda is_distributed
    is_floating_point is_inference is_ipu is_leaf is_maia is_meta is_mkldnn is_mps
    is_mtia is_neg is_nested is_nonzero is_pinned is_quantized is_same_size is_set_to
    is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xpu isclose isfinite isinf
    isnan isneginf isposinf isreal istft itemsize kron kthvalue lcm lcm_ ldexp ldexp_
    le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_
    log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2
    logcumsumexp logdet logical_and logical_and_ logical_not logical_not_ logical_or
    logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu
    lu_solve mH mT map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_
    masked_select matmul matrix_exp matrix_power maximum median minimum mm mode
    module_load moveaxis movedim msort mul mul_ multinomial multiply multiply_ mv
    mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum
    narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_
    nelement new new_empty new_empty_strided new_full new_ones new_tensor new_zeros
    nextafter nextafter_ nonzero_static norm normal_ not_equal not_equal_ numel numpy
    orgqr ormqr outer output_nr permute pin_memory pinverse polygamma polygamma_
    positive pow pow_ prelu put_ q_per_channel_axis q_per_channel_scales
    q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_
    random_ real reciprocal reciprocal_ record_stream register_hook
    register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_ renorm
    renorm_ repeat_interleave requires_grad reshape_as resize_ resize_as resize_as_
    resize_as_sparse_ resolve_conj resolve_neg retain_grad retains_grad roll rot90
    round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ select select_scatter set_ sgn sgn_ share_memory_
    short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_
    slice_inverse slice_scatter slogdet smm softmax solve sparse_dim sparse_mask
    sparse_resize_ sparse_resize_and_clear_ split_with_sizes sqrt sqrt_ square square_
    squeeze_ sspaddmm stft storage storage_offset storage_type stride sub sub_ subtract
    subtract_ sum_to_size svd swapaxes_ swapdims swapdims_ symeig t t_ take_along_dim
    tan tan_ tanh tanh_ tensor_split tile to_dense to_mkldnn to_padded_tensor to_sparse
    to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr topk
    transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc
    trunc_ type_as unbind unflatten unfold uniform_ unique unique_consecutive
    unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_
    untyped_storage vdot view_as vsplit where xlogy xlogy_ zero_
    """.split()
)
COMPUTED_TENSOR_METHODS = frozenset(
    """
    abs_ absolute absolute_ acos acos_ acosh acosh_ add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint amax amin
    angle apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
    arctan2 arctan2_ arctan_ arctanh arctanh_ argwhere as_strided as_strided_
    as_strided_scatter asin asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_
    baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and bitwise_and_
    bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or
    bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm
    bool broadcast_to byte cauchy_ ccol_indices ceil ceil_ chalf char cholesky
    cholesky_inverse cholesky_solve clamp clamp_ clamp_max clamp_max_ clamp_min
    clamp_min_ clip_ clone coalesce col_indices conj_physical conj_physical_ contiguous
    copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cpu cross
    crow_indices cuda cumprod_ cumsum_ deg2rad deg2rad_ dequantize det detach detach_
    diag diag_embed diagflat diagonal_scatter digamma digamma_ dist div_ divide_ double
    eq_ erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1
    expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flip fliplr flipud float
    float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod
    fmod_ frac frac_ gather gcd gcd_ ge_ geometric_ ger greater greater_ greater_equal
    greater_equal_ gt_ half hardshrink hash_tensor heaviside heaviside_ histc hypot
    hypot_ i0 i0_ igamma igamma_ igammac igammac_ index_add index_add_ index_copy
    index_copy_ index_fill index_fill_ index_put index_put_ index_reduce index_reduce_
    index_select inner int int_repr inverse isclose isfinite isinf isnan isneginf
    isposinf isreal istft kron lcm lcm_ ldexp ldexp_ le_ lerp lerp_ less less_
    less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_
    log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
    logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor
    logical_xor_ logit logit_ logsumexp long lt_ lu_solve map2_ map_ masked_fill
    masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
    matrix_power maximum minimum mm moveaxis movedim msort mul_ multinomial multiply_
    mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean nanquantile nansum narrow
    narrow_copy ne_ neg neg_ negative negative_ new_empty new_empty_strided new_full
    new_ones new_tensor new_zeros nextafter nextafter_ nonzero_static normal_ not_equal
    not_equal_ orgqr ormqr outer permute pin_memory pinverse polygamma polygamma_
    positive pow_ prelu put_ q_per_channel_scales q_per_channel_zero_points rad2deg
    rad2deg_ random_ reciprocal reciprocal_ relu relu_ remainder remainder_ renorm
    renorm_ repeat_interleave requires_grad_ reshape_as resize_ resize_as_
    resize_as_sparse_ resolve_conj resolve_neg roll rot90 round_ row_indices rsqrt
    rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_
    select_scatter set_ sgn sgn_ short sigmoid sigmoid_ sign sign_ signbit sin sin_
    sinc sinc_ sinh sinh_ slice_inverse slice_scatter smm softmax sparse_mask
    sparse_resize_ sparse_resize_and_clear_ sqrt sqrt_ square square_ squeeze_ sspaddmm
    sub_ subtract_ sum_to_size swapaxes_ swapdims swapdims_ t t_ take_along_dim tan
    tan_ tanh tanh_ tile to to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc
    to_sparse_bsr to_sparse_csc to_sparse_csr transpose_ tril tril_ triu triu_
    true_divide true_divide_ trunc trunc_ type_as unflatten unfold uniform_ unsqueeze
    unsqueeze_ vdot view_as xlogy xlogy_ xpu zero_
    """.split()
)
DEPRECATED_INIT_FUNCTIONS = frozenset(
    """
    torch.nn.init.constant torch.nn.init.dirac torch.nn.init.eye
    torch.nn.init.kaiming_normal torch.nn.init.kaiming_uniform torch.nn.init.normal
    torch.nn.init.orthogonal torch.nn.init.sparse torch.nn.init.uniform
    torch.nn.init.xavier_normal torch.nn.init.xavier_uniform
    """.split()
)
MODULE_SELF_METHODS = frozenset(
    """
    apply bfloat16 cpu cuda double eval float half ipu mtia requires_grad_ share_memory
    to to_empty train type xpu
    """.split()
)
DISTRIBUTIONS = frozenset(
    """
    torch.distributions.Bernoulli torch.distributions.Beta torch.distributions.Binomial
    torch.distributions.Categorical torch.distributions.Cauchy torch.distributions.Chi2
    torch.distributions.ContinuousBernoulli torch.distributions.Dirichlet
    torch.distributions.Distribution torch.distributions.Exponential
    torch.distributions.ExponentialFamily torch.distributions.FisherSnedecor
    torch.distributions.Gamma torch.distributions.GeneralizedPareto
    torch.distributions.Geometric torch.distributions.Gumbel
    torch.distributions.HalfCauchy torch.distributions.HalfNormal
    torch.distributions.Independent torch.distributions.InverseGamma
    torch.distributions.Kumaraswamy torch.distributions.LKJCholesky
    torch.distributions.Laplace torch.distributions.LogNormal
    torch.distributions.LogisticNormal torch.distributions.LowRankMultivariateNormal
    torch.distributions.MixtureSameFamily torch.distributions.Multinomial
    torch.distributions.MultivariateNormal torch.distributions.NegativeBinomial
    torch.distributions.Normal torch.distributions.OneHotCategorical
    torch.distributions.OneHotCategoricalStraightThrough torch.distributions.Pareto
    torch.distributions.Poisson torch.distributions.RelaxedBernoulli
    torch.distributions.RelaxedOneHotCategorical torch.distributions.StudentT
    torch.distributions.TransformedDistribution torch.distributions.Uniform
    torch.distributions.VonMises torch.distributions.Weibull
    torch.distributions.Wishart torch.distributions.bernoulli.Bernoulli
    torch.distributions.beta.Beta torch.distributions.binomial.Binomial
    torch.distributions.categorical.Categorical torch.distributions.cauchy.Cauchy
    torch.distributions.chi2.Chi2
    torch.distributions.continuous_bernoulli.ContinuousBernoulli
    torch.distributions.dirichlet.Dirichlet
    torch.distributions.distribution.Distribution
    torch.distributions.exp_family.ExponentialFamily
    torch.distributions.exponential.Exponential
    torch.distributions.fishersnedecor.FisherSnedecor torch.distributions.gamma.Gamma
    torch.distributions.generalized_pareto.GeneralizedPareto
    torch.distributions.geometric.Geometric torch.distributions.gumbel.Gumbel
    torch.distributions.half_cauchy.HalfCauchy
    torch.distributions.half_normal.HalfNormal
    torch.distributions.independent.Independent
    torch.distributions.inverse_gamma.InverseGamma
    torch.distributions.kumaraswamy.Kumaraswamy torch.distributions.laplace.Laplace
    torch.distributions.lkj_cholesky.LKJCholesky
    torch.distributions.log_normal.LogNormal
    torch.distributions.logistic_normal.LogisticNormal
    torch.distributions.lowrank_multivariate_normal.LowRankMultivariateNormal
    torch.distributions.mixture_same_family.MixtureSameFamily
    torch.distributions.multinomial.Multinomial
    torch.distributions.multivariate_normal.MultivariateNormal
    torch.distributions.negative_binomial.NegativeBinomial
    torch.distributions.normal.Normal
    torch.distributions.one_hot_categorical.OneHotCategorical
    torch.distributions.one_hot_categorical.OneHotCategoricalStraightThrough
    torch.distributions.pareto.Pareto torch.distributions.poisson.Poisson
    torch.distributions.relaxed_bernoulli.RelaxedBernoulli
    torch.distributions.relaxed_categorical.RelaxedOneHotCategorical
    torch.distributions.studentT.StudentT
    torch.distributions.transformed_distribution.TransformedDistribution
    torch.distributions.uniform.Uniform torch.distributions.von_mises.VonMises
    torch.distributions.weibull.Weibull torch.distributions.wishart.Wishart
    """.split()
)
DISTRIBUTION_TENSOR_METHODS = frozenset(
    """
    cdf entropy enumerate_support icdf log_prob perplexity rsample sample sample_n
    """.split()
)
DISTRIBUTION_TENSOR_PROPERTIES = frozenset(
    """
    mean mode stddev variance
    """.split()
)
NUMPY_TENSOR_UFUNCS = frozenset(
    """
    abs absolute acos acosh add arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    asin asinh atan atan2 atanh bitwise_and bitwise_count bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor cbrt ceil
    conj conjugate copysign cos cosh deg2rad degrees divide equal exp exp2 expm1 fabs
    float_power floor floor_divide fmax fmin fmod gcd greater greater_equal heaviside
    hypot invert isfinite isinf isnan lcm ldexp left_shift less less_equal log log10
    log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
    matmul maximum minimum mod multiply negative nextafter not_equal positive pow power
    rad2deg radians reciprocal remainder right_shift rint sign signbit sin sinh spacing
    sqrt square subtract tan tanh true_divide trunc vecdot
    """.split()
)

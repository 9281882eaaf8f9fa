/* Part of the collector <-> front-end protocol (collector/protocol.h, whose
 * ROCSYS_PROTOCOL_VERSION covers it): the ids of the HIP entry points, a table of its own
 * because it is long. Included by protocol.h only. */
#ifndef ROCSYS_COLLECTOR_PROTOCOL_HIP_H
#define ROCSYS_COLLECTOR_PROTOCOL_HIP_H

/* HIP entry points the collector interposes: X(id, name, launch). Ids are protocol: append
 * only. launch: 0 not a kernel launch; 1 a launch of one kernel; 2 a multi-device launch, one
 * launch of a kernel when every device launches the same one (the collector then names it). */
/* clang-format off */
#define ROCSYS_HIP_API_LIST(X)                                                                     \
    X(1, hipLaunchKernel, 1) X(2, hipLaunchKernel_spt, 1) X(3, hipExtLaunchKernel, 1)              \
    X(4, hipModuleLaunchKernel, 1) X(5, hipLaunchCooperativeKernel, 1)                             \
    X(6, __hipPushCallConfiguration, 0) X(7, __hipPopCallConfiguration, 0) X(8, hipMalloc, 0)      \
    X(9, hipMallocManaged, 0) X(10, hipHostMalloc, 0) X(11, hipMallocAsync, 0) X(12, hipFree, 0)   \
    X(13, hipHostFree, 0) X(14, hipFreeAsync, 0) X(15, hipMemcpy, 0) X(16, hipMemcpyAsync, 0)      \
    X(17, hipMemcpyHtoD, 0) X(18, hipMemcpyDtoH, 0) X(19, hipMemcpyDtoD, 0)                        \
    X(20, hipMemcpyHtoDAsync, 0) X(21, hipMemcpyDtoHAsync, 0) X(22, hipMemcpyDtoDAsync, 0)         \
    X(23, hipMemset, 0) X(24, hipMemsetAsync, 0) X(25, hipDeviceSynchronize, 0)                    \
    X(26, hipStreamSynchronize, 0) X(27, hipEventSynchronize, 0) X(28, hipStreamCreate, 0)         \
    X(29, hipStreamCreateWithFlags, 0) X(30, hipStreamDestroy, 0) X(31, hipStreamWaitEvent, 0)     \
    X(32, hipEventCreate, 0) X(33, hipEventCreateWithFlags, 0) X(34, hipEventRecord, 0)            \
    X(35, hipEventDestroy, 0) X(36, hipEventElapsedTime, 0) X(37, hipEventQuery, 0)                \
    X(38, hipStreamQuery, 0) X(39, hipModuleGetFunction, 0) X(40, hipMemcpyWithStream, 0)          \
    X(41, hipMemcpyPeer, 0) X(42, hipMemcpyPeerAsync, 0) X(43, hipMemcpy2D, 0)                     \
    X(44, hipMemcpy2DAsync, 0) X(45, hipMemcpyToSymbol, 0) X(46, hipMemcpyToSymbolAsync, 0)        \
    X(47, hipMemcpyFromSymbol, 0) X(48, hipMemcpyFromSymbolAsync, 0) X(49, hipMemsetD8, 0)         \
    X(50, hipMemsetD8Async, 0) X(51, hipMemsetD16, 0) X(52, hipMemsetD16Async, 0)                  \
    X(53, hipMemsetD32, 0) X(54, hipMemsetD32Async, 0) X(55, hipMemset2D, 0)                       \
    X(56, hipMemset2DAsync, 0) X(57, hipMallocPitch, 0) X(58, hipMallocHost, 0)                    \
    X(59, hipFreeHost, 0) X(60, hipExtMallocWithFlags, 0) X(61, hipMallocFromPoolAsync, 0)         \
    X(62, hipMemcpy_spt, 0) X(63, hipMemcpyAsync_spt, 0) X(64, hipMemset_spt, 0)                   \
    X(65, hipLaunchCooperativeKernel_spt, 1) X(66, hipGraphLaunch, 0) X(67, hipMemcpy3D, 0)        \
    X(68, hipMemcpy3DAsync, 0) X(69, hipMallocArray, 0) X(70, hipFreeArray, 0)                     \
    X(71, hipExtModuleLaunchKernel, 1) X(72, hipHccModuleLaunchKernel, 1)                          \
    X(73, hipMemcpyParam2D, 0) X(74, hipMemcpyParam2DAsync, 0) X(75, hipMalloc3D, 0)               \
    X(76, hipMalloc3DArray, 0) X(77, hipArrayCreate, 0) X(78, hipArray3DCreate, 0)                 \
    X(79, hipArrayDestroy, 0) X(80, hipMemcpy2DToArray, 0) X(81, hipMemcpy2DToArrayAsync, 0)       \
    X(82, hipMemcpy2DFromArray, 0) X(83, hipMemcpy2DFromArrayAsync, 0) X(84, hipMemcpyToArray, 0)  \
    X(85, hipMemcpyFromArray, 0) X(86, hipMemcpyAtoH, 0) X(87, hipMemcpyHtoA, 0)                   \
    X(88, hipStreamCreateWithPriority, 0) X(89, hipLaunchCooperativeKernelMultiDevice, 2)          \
    X(90, hipExtLaunchMultiKernelMultiDevice, 2) X(91, hipMemset3D, 0)                             \
    X(92, hipMemset3DAsync, 0) X(93, hipMemcpy2D_spt, 0) X(94, hipMemcpy2DToArray_spt, 0)          \
    X(95, hipMemcpy2DFromArray_spt, 0) X(96, hipMemcpy3D_spt, 0) X(97, hipMemcpyToSymbol_spt, 0)   \
    X(98, hipMemcpyFromSymbol_spt, 0) X(99, hipMemset2D_spt, 0) X(100, hipMemset3D_spt, 0)         \
    X(101, hipStreamSynchronize_spt, 0) X(102, hipStreamQuery_spt, 0)                              \
    X(103, hipStreamWaitEvent_spt, 0) X(104, hipLaunchByPtr, 1)                                    \
    X(105, hipGetDeviceCount, 0)                                                                   \
    X(106, hipGetDeviceProperties, 0)                                                              \
    X(107, hipGetDevicePropertiesR0000, 0)                                                         \
    X(108, hipGetDevicePropertiesR0600, 0)                                                         \
    X(109, hipChooseDevice, 0)                                                                     \
    X(110, hipChooseDeviceR0000, 0)                                                                \
    X(111, hipChooseDeviceR0600, 0)                                                                \
    X(112, hipSetDevice, 0)                                                                        \
    X(113, hipGetDevice, 0)                                                                        \
    X(114, hipDeviceGetAttribute, 0)                                                               \
    X(115, hipInit, 0)                                                                             \
    X(116, hipDeviceReset, 0)                                                                      \
    X(117, hipModuleLaunchCooperativeKernel, 1)                                                    \
    X(118, hipModuleLaunchCooperativeKernelMultiDevice, 2)                                         \
    X(119, hipGraphLaunch_spt, 0)                                                                  \
    X(120, hipGraphUpload, 0)                                                                      \
    X(121, hipLaunchHostFunc, 0)                                                                   \
    X(122, hipLaunchHostFunc_spt, 0)                                                               \
    X(123, hipMemcpy2DAsync_spt, 0)                                                                \
    X(124, hipMemcpy2DFromArrayAsync_spt, 0)                                                       \
    X(125, hipMemcpy2DToArrayAsync_spt, 0)                                                         \
    X(126, hipMemcpy3DAsync_spt, 0)                                                                \
    X(127, hipMemcpyFromArray_spt, 0)                                                              \
    X(128, hipMemcpyFromSymbolAsync_spt, 0)                                                        \
    X(129, hipMemcpyToSymbolAsync_spt, 0)                                                          \
    X(130, hipMemcpy2DArrayToArray, 0)                                                             \
    X(131, hipMemcpyAtoA, 0)                                                                       \
    X(132, hipMemcpyAtoD, 0)                                                                       \
    X(133, hipMemcpyAtoHAsync, 0)                                                                  \
    X(134, hipMemcpyDtoA, 0)                                                                       \
    X(135, hipMemcpyHtoAAsync, 0)                                                                  \
    X(136, hipDrvMemcpy2DUnaligned, 0)                                                             \
    X(137, hipDrvMemcpy3D, 0)                                                                      \
    X(138, hipDrvMemcpy3DAsync, 0)                                                                 \
    X(139, hipMemsetAsync_spt, 0)                                                                  \
    X(140, hipMemset2DAsync_spt, 0)                                                                \
    X(141, hipMemset3DAsync_spt, 0)                                                                \
    X(142, hipEventRecord_spt, 0)                                                                  \
    X(143, hipEventRecordWithFlags, 0)                                                             \
    X(144, hipStreamAddCallback, 0)                                                                \
    X(145, hipStreamAddCallback_spt, 0)                                                            \
    X(146, hipStreamBeginCapture, 0)                                                               \
    X(147, hipStreamBeginCapture_spt, 0)                                                           \
    X(148, hipStreamEndCapture, 0)                                                                 \
    X(149, hipStreamEndCapture_spt, 0)                                                             \
    X(150, hipStreamIsCapturing, 0)                                                                \
    X(151, hipStreamIsCapturing_spt, 0)                                                            \
    X(152, hipStreamGetFlags, 0)                                                                   \
    X(153, hipStreamGetFlags_spt, 0)                                                               \
    X(154, hipStreamGetPriority, 0)                                                                \
    X(155, hipStreamGetPriority_spt, 0)                                                            \
    X(156, hipDeviceGetGraphMemAttribute, 0) X(157, hipDeviceGraphMemTrim, 0)                      \
    X(158, hipDeviceSetGraphMemAttribute, 0) X(159, hipDrvGraphAddMemFreeNode, 0)                  \
    X(160, hipDrvGraphAddMemcpyNode, 0) X(161, hipDrvGraphAddMemsetNode, 0)                        \
    X(162, hipDrvGraphExecMemcpyNodeSetParams, 0) X(163, hipDrvGraphExecMemsetNodeSetParams, 0)    \
    X(164, hipDrvGraphMemcpyNodeGetParams, 0) X(165, hipDrvGraphMemcpyNodeSetParams, 0)            \
    X(166, hipGraphAddBatchMemOpNode, 0) X(167, hipGraphAddChildGraphNode, 0)                      \
    X(168, hipGraphAddDependencies, 0) X(169, hipGraphAddEmptyNode, 0)                             \
    X(170, hipGraphAddEventRecordNode, 0) X(171, hipGraphAddEventWaitNode, 0)                      \
    X(172, hipGraphAddHostNode, 0) X(173, hipGraphAddKernelNode, 0)                                \
    X(174, hipGraphAddMemAllocNode, 0) X(175, hipGraphAddMemFreeNode, 0)                           \
    X(176, hipGraphAddMemcpyNode, 0) X(177, hipGraphAddMemcpyNode1D, 0)                            \
    X(178, hipGraphAddMemcpyNodeFromSymbol, 0) X(179, hipGraphAddMemcpyNodeToSymbol, 0)            \
    X(180, hipGraphAddMemsetNode, 0) X(181, hipGraphAddNode, 0)                                    \
    X(182, hipGraphBatchMemOpNodeGetParams, 0) X(183, hipGraphBatchMemOpNodeSetParams, 0)          \
    X(184, hipGraphChildGraphNodeGetGraph, 0) X(185, hipGraphClone, 0) X(186, hipGraphCreate, 0)   \
    X(187, hipGraphDebugDotPrint, 0) X(188, hipGraphDestroy, 0) X(189, hipGraphDestroyNode, 0)     \
    X(190, hipGraphEventRecordNodeGetEvent, 0) X(191, hipGraphEventRecordNodeSetEvent, 0)          \
    X(192, hipGraphEventWaitNodeGetEvent, 0) X(193, hipGraphEventWaitNodeSetEvent, 0)              \
    X(194, hipGraphExecBatchMemOpNodeSetParams, 0) X(195, hipGraphExecChildGraphNodeSetParams, 0)  \
    X(196, hipGraphExecDestroy, 0) X(197, hipGraphExecEventRecordNodeSetEvent, 0)                  \
    X(198, hipGraphExecEventWaitNodeSetEvent, 0) X(199, hipGraphExecGetFlags, 0)                   \
    X(200, hipGraphExecHostNodeSetParams, 0) X(201, hipGraphExecKernelNodeSetParams, 0)            \
    X(202, hipGraphExecMemcpyNodeSetParams, 0) X(203, hipGraphExecMemcpyNodeSetParams1D, 0)        \
    X(204, hipGraphExecMemcpyNodeSetParamsFromSymbol, 0)                                           \
    X(205, hipGraphExecMemcpyNodeSetParamsToSymbol, 0) X(206, hipGraphExecMemsetNodeSetParams, 0)  \
    X(207, hipGraphExecNodeSetParams, 0) X(208, hipGraphExecUpdate, 0) X(209, hipGraphGetEdges, 0) \
    X(210, hipGraphGetNodes, 0) X(211, hipGraphGetRootNodes, 0)                                    \
    X(212, hipGraphHostNodeGetParams, 0) X(213, hipGraphHostNodeSetParams, 0)                      \
    X(214, hipGraphInstantiate, 0) X(215, hipGraphInstantiateWithFlags, 0)                         \
    X(216, hipGraphInstantiateWithParams, 0) X(217, hipGraphKernelNodeCopyAttributes, 0)           \
    X(218, hipGraphKernelNodeGetAttribute, 0) X(219, hipGraphKernelNodeGetParams, 0)               \
    X(220, hipGraphKernelNodeSetAttribute, 0) X(221, hipGraphKernelNodeSetParams, 0)               \
    X(222, hipGraphMemAllocNodeGetParams, 0) X(223, hipGraphMemFreeNodeGetParams, 0)               \
    X(224, hipGraphMemcpyNodeGetParams, 0) X(225, hipGraphMemcpyNodeSetParams, 0)                  \
    X(226, hipGraphMemcpyNodeSetParams1D, 0) X(227, hipGraphMemcpyNodeSetParamsFromSymbol, 0)      \
    X(228, hipGraphMemcpyNodeSetParamsToSymbol, 0) X(229, hipGraphMemsetNodeGetParams, 0)          \
    X(230, hipGraphMemsetNodeSetParams, 0) X(231, hipGraphNodeFindInClone, 0)                      \
    X(232, hipGraphNodeGetDependencies, 0) X(233, hipGraphNodeGetDependentNodes, 0)                \
    X(234, hipGraphNodeGetEnabled, 0) X(235, hipGraphNodeGetType, 0)                               \
    X(236, hipGraphNodeSetEnabled, 0) X(237, hipGraphNodeSetParams, 0)                             \
    X(238, hipGraphReleaseUserObject, 0) X(239, hipGraphRemoveDependencies, 0)                     \
    X(240, hipGraphRetainUserObject, 0) X(241, hipStreamBeginCaptureToGraph, 0)                    \
    X(242, hipStreamGetCaptureInfo, 0) X(243, hipStreamGetCaptureInfo_spt, 0)                      \
    X(244, hipStreamGetCaptureInfo_v2, 0) X(245, hipStreamGetCaptureInfo_v2_spt, 0)                \
    X(246, hipStreamUpdateCaptureDependencies, 0) X(247, hipThreadExchangeStreamCaptureMode, 0)    \
    X(248, hipUserObjectCreate, 0) X(249, hipUserObjectRelease, 0) X(250, hipUserObjectRetain, 0)  \
    X(251, hipDeviceGetDefaultMemPool, 0) X(252, hipDeviceGetMemPool, 0)                           \
    X(253, hipDeviceSetMemPool, 0) X(254, hipMemAddressFree, 0) X(255, hipMemAddressReserve, 0)    \
    X(256, hipMemCreate, 0) X(257, hipMemExportToShareableHandle, 0) X(258, hipMemGetAccess, 0)    \
    X(259, hipMemGetAllocationGranularity, 0) X(260, hipMemGetAllocationPropertiesFromHandle, 0)   \
    X(261, hipMemImportFromShareableHandle, 0) X(262, hipMemMap, 0) X(263, hipMemMapArrayAsync, 0) \
    X(264, hipMemPoolCreate, 0) X(265, hipMemPoolDestroy, 0) X(266, hipMemPoolExportPointer, 0)    \
    X(267, hipMemPoolExportToShareableHandle, 0) X(268, hipMemPoolGetAccess, 0)                    \
    X(269, hipMemPoolGetAttribute, 0) X(270, hipMemPoolImportFromShareableHandle, 0)               \
    X(271, hipMemPoolImportPointer, 0) X(272, hipMemPoolSetAccess, 0)                              \
    X(273, hipMemPoolSetAttribute, 0) X(274, hipMemPoolTrimTo, 0) X(275, hipMemRelease, 0)         \
    X(276, hipMemRetainAllocationHandle, 0) X(277, hipMemSetAccess, 0) X(278, hipMemUnmap, 0)      \
    X(279, hipArray3DGetDescriptor, 0) X(280, hipArrayGetDescriptor, 0) X(281, hipArrayGetInfo, 0) \
    X(282, hipBindTexture, 0) X(283, hipBindTexture2D, 0) X(284, hipBindTextureToArray, 0)         \
    X(285, hipBindTextureToMipmappedArray, 0) X(286, hipCreateChannelDesc, 0)                      \
    X(287, hipCreateSurfaceObject, 0) X(288, hipCreateTextureObject, 0)                            \
    X(289, hipDestroySurfaceObject, 0) X(290, hipDestroyTextureObject, 0)                          \
    X(291, hipFreeMipmappedArray, 0) X(292, hipGetChannelDesc, 0)                                  \
    X(293, hipGetMipmappedArrayLevel, 0) X(294, hipGetTextureAlignmentOffset, 0)                   \
    X(295, hipGetTextureObjectResourceDesc, 0) X(296, hipGetTextureObjectResourceViewDesc, 0)      \
    X(297, hipGetTextureObjectTextureDesc, 0) X(298, hipGetTextureReference, 0)                    \
    X(299, hipMallocMipmappedArray, 0) X(300, hipMipmappedArrayCreate, 0)                          \
    X(301, hipMipmappedArrayDestroy, 0) X(302, hipMipmappedArrayGetLevel, 0)                       \
    X(303, hipTexObjectCreate, 0) X(304, hipTexObjectDestroy, 0)                                   \
    X(305, hipTexObjectGetResourceDesc, 0) X(306, hipTexObjectGetResourceViewDesc, 0)              \
    X(307, hipTexObjectGetTextureDesc, 0) X(308, hipTexRefGetAddress, 0)                           \
    X(309, hipTexRefGetAddressMode, 0) X(310, hipTexRefGetArray, 0)                                \
    X(311, hipTexRefGetBorderColor, 0) X(312, hipTexRefGetFilterMode, 0)                           \
    X(313, hipTexRefGetFlags, 0) X(314, hipTexRefGetFormat, 0)                                     \
    X(315, hipTexRefGetMaxAnisotropy, 0) X(316, hipTexRefGetMipMappedArray, 0)                     \
    X(317, hipTexRefGetMipmapFilterMode, 0) X(318, hipTexRefGetMipmapLevelBias, 0)                 \
    X(319, hipTexRefGetMipmapLevelClamp, 0) X(320, hipTexRefSetAddress, 0)                         \
    X(321, hipTexRefSetAddress2D, 0) X(322, hipTexRefSetAddressMode, 0)                            \
    X(323, hipTexRefSetArray, 0) X(324, hipTexRefSetBorderColor, 0)                                \
    X(325, hipTexRefSetFilterMode, 0) X(326, hipTexRefSetFlags, 0) X(327, hipTexRefSetFormat, 0)   \
    X(328, hipTexRefSetMaxAnisotropy, 0) X(329, hipTexRefSetMipmapFilterMode, 0)                   \
    X(330, hipTexRefSetMipmapLevelBias, 0) X(331, hipTexRefSetMipmapLevelClamp, 0)                 \
    X(332, hipTexRefSetMipmappedArray, 0) X(333, hipUnbindTexture, 0) X(334, hipApiName, 0)        \
    X(335, hipConfigureCall, 0) X(336, hipFuncGetAttribute, 0) X(337, hipFuncGetAttributes, 0)     \
    X(338, hipFuncSetAttribute, 0) X(339, hipFuncSetCacheConfig, 0)                                \
    X(340, hipFuncSetSharedMemConfig, 0) X(341, hipGetFuncBySymbol, 0)                             \
    X(342, hipGetProcAddress, 0) X(343, hipGetSymbolAddress, 0) X(344, hipGetSymbolSize, 0)        \
    X(345, hipKernelNameRef, 0) X(346, hipKernelNameRefByPtr, 0) X(347, hipLinkAddData, 0)         \
    X(348, hipLinkAddFile, 0) X(349, hipLinkComplete, 0) X(350, hipLinkCreate, 0)                  \
    X(351, hipLinkDestroy, 0) X(352, hipModuleGetGlobal, 0) X(353, hipModuleGetTexRef, 0)          \
    X(354, hipModuleLoad, 0) X(355, hipModuleLoadData, 0) X(356, hipModuleLoadDataEx, 0)           \
    X(357, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor, 0)                                  \
    X(358, hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 0)                         \
    X(359, hipModuleOccupancyMaxPotentialBlockSize, 0)                                             \
    X(360, hipModuleOccupancyMaxPotentialBlockSizeWithFlags, 0) X(361, hipModuleUnload, 0)         \
    X(362, hipOccupancyMaxActiveBlocksPerMultiprocessor, 0)                                        \
    X(363, hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 0)                               \
    X(364, hipOccupancyMaxPotentialBlockSize, 0) X(365, hipSetupArgument, 0)                       \
    X(366, hipCtxCreate, 0) X(367, hipCtxDestroy, 0) X(368, hipCtxDisablePeerAccess, 0)            \
    X(369, hipCtxEnablePeerAccess, 0) X(370, hipCtxGetApiVersion, 0)                               \
    X(371, hipCtxGetCacheConfig, 0) X(372, hipCtxGetCurrent, 0) X(373, hipCtxGetDevice, 0)         \
    X(374, hipCtxGetFlags, 0) X(375, hipCtxGetSharedMemConfig, 0) X(376, hipCtxPopCurrent, 0)      \
    X(377, hipCtxPushCurrent, 0) X(378, hipCtxSetCacheConfig, 0) X(379, hipCtxSetCurrent, 0)       \
    X(380, hipCtxSetSharedMemConfig, 0) X(381, hipCtxSynchronize, 0)                               \
    X(382, hipDeviceCanAccessPeer, 0) X(383, hipDeviceComputeCapability, 0)                        \
    X(384, hipDeviceDisablePeerAccess, 0) X(385, hipDeviceEnablePeerAccess, 0)                     \
    X(386, hipDeviceGet, 0) X(387, hipDeviceGetByPCIBusId, 0) X(388, hipDeviceGetCacheConfig, 0)   \
    X(389, hipDeviceGetLimit, 0) X(390, hipDeviceGetName, 0) X(391, hipDeviceGetP2PAttribute, 0)   \
    X(392, hipDeviceGetPCIBusId, 0) X(393, hipDeviceGetSharedMemConfig, 0)                         \
    X(394, hipDeviceGetStreamPriorityRange, 0) X(395, hipDeviceGetUuid, 0)                         \
    X(396, hipDevicePrimaryCtxGetState, 0) X(397, hipDevicePrimaryCtxRelease, 0)                   \
    X(398, hipDevicePrimaryCtxReset, 0) X(399, hipDevicePrimaryCtxRetain, 0)                       \
    X(400, hipDevicePrimaryCtxSetFlags, 0) X(401, hipDeviceSetCacheConfig, 0)                      \
    X(402, hipDeviceSetLimit, 0) X(403, hipDeviceSetSharedMemConfig, 0)                            \
    X(404, hipDeviceTotalMem, 0) X(405, hipDriverGetVersion, 0) X(406, hipDrvGetErrorName, 0)      \
    X(407, hipDrvGetErrorString, 0) X(408, hipExtGetLastError, 0)                                  \
    X(409, hipExtGetLinkTypeAndHopCount, 0) X(410, hipGetDeviceFlags, 0)                           \
    X(411, hipGetErrorName, 0) X(412, hipGetErrorString, 0) X(413, hipGetLastError, 0)             \
    X(414, hipPeekAtLastError, 0) X(415, hipProfilerStart, 0) X(416, hipProfilerStop, 0)           \
    X(417, hipRuntimeGetVersion, 0) X(418, hipSetDeviceFlags, 0) X(419, hipSetValidDevices, 0)     \
    X(420, hipDestroyExternalMemory, 0) X(421, hipDestroyExternalSemaphore, 0)                     \
    X(422, hipDrvPointerGetAttributes, 0) X(423, hipExtStreamCreateWithCUMask, 0)                  \
    X(424, hipExtStreamGetCUMask, 0) X(425, hipExternalMemoryGetMappedBuffer, 0)                   \
    X(426, hipGetStreamDeviceId, 0) X(427, hipGraphicsMapResources, 0)                             \
    X(428, hipGraphicsResourceGetMappedPointer, 0) X(429, hipGraphicsSubResourceGetMappedArray, 0) \
    X(430, hipGraphicsUnmapResources, 0) X(431, hipGraphicsUnregisterResource, 0)                  \
    X(432, hipHostAlloc, 0) X(433, hipHostGetDevicePointer, 0) X(434, hipHostGetFlags, 0)          \
    X(435, hipHostRegister, 0) X(436, hipHostUnregister, 0) X(437, hipImportExternalMemory, 0)     \
    X(438, hipImportExternalSemaphore, 0) X(439, hipIpcCloseMemHandle, 0)                          \
    X(440, hipIpcGetEventHandle, 0) X(441, hipIpcGetMemHandle, 0) X(442, hipIpcOpenEventHandle, 0) \
    X(443, hipIpcOpenMemHandle, 0) X(444, hipMemAdvise, 0) X(445, hipMemAllocHost, 0)              \
    X(446, hipMemAllocPitch, 0) X(447, hipMemGetAddressRange, 0) X(448, hipMemGetInfo, 0)          \
    X(449, hipMemPrefetchAsync, 0) X(450, hipMemPtrGetInfo, 0) X(451, hipMemRangeGetAttribute, 0)  \
    X(452, hipMemRangeGetAttributes, 0) X(453, hipPointerGetAttribute, 0)                          \
    X(454, hipPointerGetAttributes, 0) X(455, hipPointerSetAttribute, 0)                           \
    X(456, hipSignalExternalSemaphoresAsync, 0) X(457, hipStreamAttachMemAsync, 0)                 \
    X(458, hipStreamBatchMemOp, 0) X(459, hipStreamGetDevice, 0) X(460, hipStreamWaitValue32, 0)   \
    X(461, hipStreamWaitValue64, 0) X(462, hipStreamWriteValue32, 0)                               \
    X(463, hipStreamWriteValue64, 0) X(464, hipWaitExternalSemaphoresAsync, 0)
/* clang-format on */

#endif

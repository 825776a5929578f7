/** decentraland-ui's Atlas palette (its COLOR_BY_TYPE), keyed by the tile types of /v2/tiles. */
export const ATLAS_COLORS = {
  district: '#5054D4',
  road: '#716C7A',
  plaza: '#70AC76',
  owned: '#3D3A46',
  unowned: '#09080A',
  loadingOdd: '#110e13',
  loadingEven: '#0d0b0e',
  // The marketplace's highlight for listings, drawn as a layer over the Atlas when asked (`?sale=1`).
  onSale: '#1FBCFF',
} as const

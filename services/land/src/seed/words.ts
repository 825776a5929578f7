import type { Random } from './prng.js'

/** Word lists for the synthetic names of the demo set: the kind of names people give their LAND. */
const ADJECTIVES = [
  'Neon',
  'Crystal',
  'Lunar',
  'Solar',
  'Velvet',
  'Golden',
  'Silent',
  'Electric',
  'Hidden',
  'Floating',
  'Emerald',
  'Crimson',
  'Azure',
  'Midnight',
  'Copper',
  'Quantum',
  'Pixel',
  'Cosmic',
  'Jade',
  'Amber',
  'Violet',
  'Misty',
  'Wild',
  'Ancient',
  'Retro',
  'Sunny',
  'Frozen',
  'Digital',
  'Coral',
  'Iron',
  'Lucky',
  'Hollow',
  'Starlit',
  'Paper',
  'Glass',
  'Rusty',
  'Secret',
  'Little',
  'Grand',
  'Sleepy',
] as const

const PLACES = [
  'Gallery',
  'Garden',
  'Arcade',
  'Lounge',
  'Tower',
  'Market',
  'Studio',
  'Café',
  'Library',
  'Observatory',
  'Pavilion',
  'Workshop',
  'Theatre',
  'Museum',
  'Harbor',
  'Dojo',
  'Boutique',
  'Temple',
  'Hideout',
  'Club',
  'Park',
  'Terrace',
  'Atelier',
  'Lab',
  'Bazaar',
  'Arena',
  'Greenhouse',
  'Cinema',
  'Hotel',
  'Bakery',
  'Records',
  'Tea House',
  'Skate Park',
  'Chapel',
  'Maze',
  'Aquarium',
  'Casino',
  'Noodle Bar',
  'Bookshop',
  'Dock',
] as const

const ESTATE_PLACES = [
  'Heights',
  'Gardens',
  'Quarter',
  'Village',
  'Commons',
  'Hills',
  'Park',
  'Campus',
  'Grove',
  'Terraces',
  'Yards',
  'Row',
  'Square',
  'Meadows',
  'Docks',
  'Estate',
  'District',
  'Valley',
  'Bay',
  'Fields',
] as const

const PARCEL_DESCRIPTIONS = [
  (place: string) => `A small ${place.toLowerCase()} built by the community. Drop by and say hi.`,
  (place: string) => `Open every day: art, music and friends at our ${place.toLowerCase()}.`,
  () => 'Work in progress. Scene coming soon.',
  () => 'Live DJ sets every Friday night, Genesis City time.',
  () => 'Digital art exhibitions curated by local artists.',
  (place: string) => `The coziest ${place.toLowerCase()} this side of the plaza.`,
  () => 'Play the mini-game and win a wearable.',
  () => 'A quiet spot to meet, chat and watch the sunset.',
  () => 'Home of a small DAO. Proposals welcome.',
  (place: string) => `Visit the ${place.toLowerCase()} and collect the POAP.`,
  () => 'Parkour course: reach the top in under a minute.',
  () => 'Virtual storefront for limited-edition wearables.',
] as const

const ESTATE_DESCRIPTIONS = [
  'A neighbourhood of galleries, shops and event spaces.',
  'Joined parcels for a large interactive experience.',
  'Headquarters of a creative studio, with a public rooftop.',
  'A festival ground that hosts concerts several times a year.',
  'Land assembled for an open-world game; early access open.',
  'A calm park with walking paths and a lake.',
  'Commercial plots for brands, with a central showroom.',
  'Residential blocks built by a community of creators.',
  'A campus for workshops, talks and meetups.',
  'Exhibition halls for generative and 3D art.',
] as const

export const parcelName = (rng: Random) => `${rng.pick(ADJECTIVES)} ${rng.pick(PLACES)}`

export const parcelDescription = (rng: Random, name: string) => {
  const place = name.split(' ').slice(1).join(' ')
  return rng.pick(PARCEL_DESCRIPTIONS)(place)
}

export const estateName = (rng: Random) => `${rng.pick(ADJECTIVES)} ${rng.pick(ESTATE_PLACES)}`

export const estateDescription = (rng: Random) => rng.pick(ESTATE_DESCRIPTIONS)

const BASE36 = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** An IPNS name in the base36 CIDv1 form a Decentraland scene publisher would show. */
export const ipnsName = (rng: Random) => {
  let key = 'k51qzi5uqu5d'
  while (key.length < 62) key += BASE36[rng.int(0, BASE36.length - 1)]
  return `ipns:${key}`
}

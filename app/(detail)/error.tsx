'use client' // error boundaries are client components

export { default } from '../(dashboard)/error'
